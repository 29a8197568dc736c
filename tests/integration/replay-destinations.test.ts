import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { CreateBatchBody } from "../../lib/replay/batch/batch-schemas";
import { createBatch, previewBatch } from "../../lib/replay/batch/create-batch";
import { getBatch } from "../../lib/replay/batch/read-batches";
import { originSink } from "../../lib/replay/sinks/origin/origin-sink";
import { SOURCE_TYPES, type SourceType } from "../../lib/sources/source-schemas";
import { approve, ingest, spatialEnvelope, type TestUsers } from "../replay/fixtures";
import { setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { addSource, pull, pulledRecords, supervisors } from "./sources/origin-flow";
import { Broker, RABBITMQ_URL, type Topology } from "./sources/rabbitmq-broker";

// A replay back to origin publishes where each dead letter's origin says, under Redrive's credentials: a message
// published straight into a DLQ with forged routing headers would be sent wherever they name. A source's
// options.destinations limit that: a batch naming a record whose destination is outside them is refused at
// creation (422 naming the record), and every batch back to origin lists its destinations with counts.

setTestAuthEnv();

let db: Db;
let users: TestUsers;

beforeAll(async () => {
  db = await testDb();
  users = await supervisors(db);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

/** Per broker type: a destination inside the source's patterns, a forged one outside, and their texts. */
const CASES: Record<SourceType, { patterns: string[]; allowed: unknown; forged: unknown; allowedText: string; forgedText: string }> = {
  rabbitmq: {
    patterns: ["orders/eu.*"],
    allowed: { type: "rabbitmq", exchange: "orders", routingKeys: ["eu.de"], queue: "work" },
    // The default exchange with a routing key naming another queue: what forged x-death headers produce.
    forged: { type: "rabbitmq", exchange: "", routingKeys: ["payments"], queue: "payments" },
    allowedText: "orders/eu.de",
    forgedText: "/payments",
  },
  nats: {
    patterns: ["orders.>", "orders.*"],
    allowed: { type: "nats", subject: "orders.eu", stream: "ORDERS" },
    forged: { type: "nats", subject: "payments.settle", stream: "ORDERS" },
    allowedText: "orders.eu",
    forgedText: "payments.settle",
  },
  redis: {
    patterns: ["orders:*"],
    allowed: { type: "redis", stream: "orders:eu", field: "body" },
    // dlqStream mode takes the stream back to from the entry's own source_stream field.
    forged: { type: "redis", stream: "payments", field: "body" },
    allowedText: "orders:eu",
    forgedText: "payments",
  },
  kafka: {
    patterns: ["orders-*"],
    allowed: { type: "kafka", topic: "orders-eu", partition: 0, offset: "1", dlqTopic: "orders-eu.DLT" },
    // kafka_dlt-original-topic is a header anyone producing to the DLT can set.
    forged: { type: "kafka", topic: "payments", partition: 0, offset: "2", dlqTopic: "orders-eu.DLT" },
    allowedText: "orders-eu",
    forgedText: "payments",
  },
  sqs: {
    patterns: ["http://127.0.0.1:5000/123456789012/orders*"],
    allowed: { type: "sqs", queueArn: null, queueUrl: "http://127.0.0.1:5000/123456789012/orders" },
    forged: { type: "sqs", queueArn: "arn:aws:sqs:us-east-1:123456789012:payments", queueUrl: null },
    allowedText: "http://127.0.0.1:5000/123456789012/orders",
    forgedText: "arn:aws:sqs:us-east-1:123456789012:payments",
  },
};

let n = 0;
/** Stored as a pull stores them: the source's name beside the origin, whose destination is given here. */
async function pulledFrom(source: string, type: SourceType, destinations: unknown[]): Promise<string[]> {
  const ids = await ingest(
    db,
    destinations.map(() => {
      n++;
      return spatialEnvelope({ key: `dest-${n}`, observedAt: n, featureId: `dest-${n}` });
    }),
  );
  for (const [i, id] of ids.entries()) {
    await db.pool.query(
      `UPDATE dead_letter SET origin_source = $2, origin = jsonb_build_object('sourceType', $3::text, 'destination', $4::jsonb,
         'position', $5::text, 'headers', '{}'::jsonb, 'properties', '{}'::jsonb) WHERE id = $1`,
      [id, source, type, JSON.stringify(destinations[i]), `p-${id}`],
    );
  }
  await approve(db, ids);
  return ids;
}

async function source(name: string, type: SourceType, options: Record<string, unknown>): Promise<void> {
  // Batch creation reads only the source's options: the URL is never opened here.
  await db.pool.query(`INSERT INTO source (name, type, url_sealed, kind, options) VALUES ($1, $2, 'unused', 'spatial', $3)`, [
    name,
    type,
    JSON.stringify(options),
  ]);
}

const originBody = (sel: { ids: string[] } | { filter: Record<string, unknown> }) =>
  CreateBatchBody.parse({ ...sel, sink: { type: "origin" }, ratePerSecond: 100 });

describe("a forged destination outside options.destinations", () => {
  for (const type of SOURCE_TYPES) {
    it(`${type}: is refused at batch creation, naming the record; the allowed ones are listed and go`, async () => {
      const c = CASES[type];
      const name = `dest-${type}`;
      await source(name, type, { destinations: c.patterns });
      const [ok1, ok2, forged] = await pulledFrom(name, type, [c.allowed, c.allowed, c.forged]);

      // The preview lists every distinct destination, with its count and whether the source allows it.
      const preview = await previewBatch(db.pool, { scope: UNSCOPED, ids: [ok1!, ok2!, forged!] }, { origin: true });
      expect(preview.destinations).toEqual([
        { source: name, destination: c.allowedText, count: 2, allowed: true },
        { source: name, destination: c.forgedText, count: 1, allowed: false },
      ]);

      // By ids: 422 naming the forged record at its position.
      const byIds = createBatch(db.pool, originBody({ ids: [ok1!, forged!, ok2!] }), users.creator, { now: new Date() });
      await expect(byIds).rejects.toMatchObject({
        code: "validation_failed",
        issues: [{ path: "ids.1", message: expect.stringContaining(`record ${forged}`) }],
      });
      await expect(byIds).rejects.toThrow(new RegExp(`records ${forged}\\b`));
      // By filter: the same record named.
      await expect(
        createBatch(db.pool, originBody({ filter: { origin: name, status: "approved" } }), users.creator, { now: new Date() }),
      ).rejects.toMatchObject({ issues: [{ path: "filter", message: expect.stringContaining(`record ${forged}`) }] });

      // Without the forged record the batch is created and keeps where it goes, for its approval page and API.
      const created = await createBatch(db.pool, originBody({ ids: [ok1!, ok2!] }), users.creator, { now: new Date() });
      const view = await getBatch(db.pool, UNSCOPED, created.id, new Date());
      expect(view.destinations).toEqual([{ source: name, destination: c.allowedText, count: 2, allowed: true }]);
      await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [created.id]);

      // Another sink does not publish to the origin: no destination applies.
      const ledger = await createBatch(
        db.pool,
        CreateBatchBody.parse({ ids: [forged!], sink: { type: "ledger" }, ratePerSecond: 100 }),
        users.creator,
        { now: new Date() },
      );
      expect((await getBatch(db.pool, UNSCOPED, ledger.id, new Date())).destinations).toBeNull();
      await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [ledger.id]);
    });
  }

  it("is refused again when sent, whichever way the item came (a rule's standing replay makes no batch to refuse)", async () => {
    const sink = originSink(db.pool);
    for (const type of SOURCE_TYPES) {
      const c = CASES[type];
      const name = `dest-send-${type}`;
      await source(name, type, { destinations: c.patterns });
      const [forged] = await pulledFrom(name, type, [c.forged]);
      const result = await sink.submit(
        {
          itemId: "0",
          batchId: "0",
          deadLetterId: forged!,
          kind: "spatial",
          idempotencyKey: `k-${forged}`,
          entityKey: null,
          observedAt: "2026-01-01T00:00:00.000000Z",
          payload: {},
        },
        new AbortController().signal,
      );
      // Refused before any connection is opened (the source's URL here opens nothing).
      expect(result, type).toEqual({
        outcome: "failed",
        reason: `source ${name} does not allow publishing to ${c.forgedText} (its options.destinations)`,
        permanent: true,
      });
    }
  });

  it("a source without options.destinations lets every destination through, listed with counts", async () => {
    await source("dest-open", "rabbitmq", { queue: "dlq" });
    const ids = await pulledFrom("dest-open", "rabbitmq", [CASES.rabbitmq.allowed, CASES.rabbitmq.forged, CASES.rabbitmq.forged]);
    const created = await createBatch(db.pool, originBody({ ids }), users.creator, { now: new Date() });
    expect((await getBatch(db.pool, UNSCOPED, created.id, new Date())).destinations).toEqual([
      { source: "dest-open", destination: "/payments", count: 2, allowed: true },
      { source: "dest-open", destination: "orders/eu.de", count: 1, allowed: true },
    ]);
    await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [created.id]);
  });
});

describe("RabbitMQ, end to end: a message published straight into the DLQ with forged x-death routing", () => {
  let broker: Broker;
  let t: Topology;
  beforeAll(async () => {
    broker = await Broker.connect();
    t = await broker.topology();
  });
  afterAll(async () => {
    await broker.cleanup();
  });

  it("is pulled with the forged destination, which the batch lists and refuses; the real dead letter goes", async () => {
    const victim = `redrive.test.victim.${t.suffix}`;
    await broker.queue(victim, {});
    // A real dead letter: published to orders.eu and rejected by the work queue's consumer.
    await broker.publish(
      t.exchange,
      "orders.eu",
      [Buffer.from(spatialEnvelope({ key: `real-${t.suffix}`, observedAt: 1, featureId: "r" }))],
      () => ({
        messageId: `real-${t.suffix}`,
      }),
    );
    await broker.rejectAll(t.work, 1);
    // A forged one: straight into the DLQ, its x-death naming the default exchange and the victim queue.
    await broker.publish("", t.dlq, [Buffer.from(spatialEnvelope({ key: `forged-${t.suffix}`, observedAt: 2, featureId: "f" }))], () => ({
      messageId: `forged-${t.suffix}`,
      headers: {
        "x-first-death-exchange": "",
        "x-first-death-queue": victim,
        "x-first-death-reason": "rejected",
        "x-death": [{ queue: victim, reason: "rejected", count: 1, exchange: "", "routing-keys": [victim] }],
      },
    }));
    await broker.waitForCount(t.dlq, 2);

    const name = await addSource(db, {
      name: `rabbit-dest-${t.suffix}`,
      type: "rabbitmq",
      url: RABBITMQ_URL,
      kind: "spatial",
      options: { queue: t.dlq, destinations: [`${t.exchange}/orders.*`] },
    });
    expect(await pull(db, name)).toMatchObject({ pulled: 2, created: 2 });
    const rows = await pulledRecords(db, name);
    const real = rows.find((r) => r.idempotency_key === `real-${t.suffix}`)!;
    const forged = rows.find((r) => r.idempotency_key === `forged-${t.suffix}`)!;
    await approve(db, [real.id, forged.id]);

    const preview = await previewBatch(db.pool, { scope: UNSCOPED, ids: [real.id, forged.id] }, { origin: true });
    expect(preview.destinations).toEqual(
      expect.arrayContaining([
        { source: name, destination: `${t.exchange}/orders.eu`, count: 1, allowed: true },
        { source: name, destination: `/${victim}`, count: 1, allowed: false },
      ]),
    );
    await expect(createBatch(db.pool, originBody({ ids: [real.id, forged.id] }), users.creator, { now: new Date() })).rejects.toMatchObject(
      {
        code: "validation_failed",
        issues: [{ path: "ids.1", message: expect.stringContaining(`record ${forged.id} would be published to "/${victim}"`) }],
      },
    );
    const created = await createBatch(db.pool, originBody({ ids: [real.id] }), users.creator, { now: new Date() });
    expect((await getBatch(db.pool, UNSCOPED, created.id, new Date())).destinations).toEqual([
      { source: name, destination: `${t.exchange}/orders.eu`, count: 1, allowed: true },
    ]);
    await db.pool.query(`UPDATE replay_batch SET status = 'cancelled' WHERE id = $1`, [created.id]);
  });
});
