import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { afcRecord, spatialEnvelope, type TestUsers } from "../../replay/fixtures";
import { setTestAuthEnv } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource, pull, pulledRecords, replayToOrigin, supervisors } from "./origin-flow";
import { Broker, RABBITMQ_URL, type Topology } from "./rabbitmq-broker";

setTestAuthEnv();

let db: Db;
let users: TestUsers;
let broker: Broker;
let t: Topology;

beforeAll(async () => {
  db = await testDb();
  users = await supervisors(db);
  broker = await Broker.connect();
  t = await broker.topology();
});

afterAll(async () => {
  await broker.cleanup();
  await db.pool.end();
  await closeDb();
});

const props = (key: string) => ({
  messageId: `orig-${key}`,
  contentType: "application/json",
  // RabbitMQ 3.10 sorts a dead letter's header table by name (trace-id, zz); jsonb would store zz first (shorter).
  headers: { zz: "north", "trace-id": `t-${key}` },
});

describe("a RabbitMQ source", () => {
  it("pulls rejected messages from a classic DLQ and delivery-limit ones from a quorum queue with their first-death exchange and routing keys; a replay publishes each back there, confirmed, once, oldest first per entity, headers kept without x-*", async () => {
    const observer = `redrive.test.observer.${t.suffix}`;
    await broker.queue(observer, {});
    const rejected = [
      spatialEnvelope({ key: "r-late", observedAt: 300, featureId: "p-1" }),
      spatialEnvelope({ key: "r-early", observedAt: 100, featureId: "p-1" }),
    ];
    await broker.publish(
      t.exchange,
      "orders.eu",
      rejected.map((b) => Buffer.from(b)),
      (i) => props(i === 0 ? "r-late" : "r-early"),
    );
    await broker.rejectAll(t.work, 2);
    await broker.publish(t.exchange, "quorum.us", [Buffer.from(spatialEnvelope({ key: "q-1", observedAt: 200, featureId: "p-2" }))], () =>
      props("q-1"),
    );
    await broker.requeueUntilDead(t.quorum, 1, t.dlq, 2);
    await broker.waitForCount(t.dlq, 3);

    const name = await addSource(db, {
      name: `rabbit-${t.suffix}`,
      type: "rabbitmq",
      url: RABBITMQ_URL,
      kind: "spatial",
      options: { queue: t.dlq },
    });
    expect(await pull(db, name)).toEqual({ pulled: 3, created: 3, duplicates: 0, unreadable: 0 });
    await broker.waitForCount(t.dlq, 0);
    const records = await pulledRecords(db, name);
    const byKey = new Map(records.map((r) => [r.idempotency_key, r]));
    expect(byKey.get("r-early")?.origin).toMatchObject({
      sourceType: "rabbitmq",
      deathReason: "rejected",
      messageId: "orig-r-early",
      destination: { type: "rabbitmq", exchange: t.exchange, routingKeys: ["orders.eu"], queue: t.work },
    });
    expect(byKey.get("r-early")?.origin.headers).toMatchObject({ "trace-id": "t-r-early" });
    expect(byKey.get("q-1")?.origin).toMatchObject({
      deathReason: "delivery_limit",
      destination: { exchange: t.exchange, routingKeys: ["quorum.us"] },
    });

    // What arrives at the original destination from now on: an observer bound like the work queues.
    await broker.channel.bindQueue(observer, t.exchange, "#");
    expect(
      await replayToOrigin(
        db,
        users,
        records.map((r) => r.id),
      ),
    ).toEqual({ applied: 3 });
    const got = await broker.readAll(observer, 800);
    const keys = got.map((m) => JSON.parse(m.content.toString()).idempotency_key as string);
    expect([...keys].sort()).toEqual(["q-1", "r-early", "r-late"]);
    expect(keys.indexOf("r-early")).toBeLessThan(keys.indexOf("r-late"));
    for (const m of got) {
      const key = JSON.parse(m.content.toString()).idempotency_key as string;
      expect(m.properties.messageId).toBe(key);
      expect(m.properties.headers?.["Idempotency-Key"]).toBe(key);
      expect(m.properties.headers?.["trace-id"]).toBe(`t-${key}`);
      // Back in the order the dead-letter queue delivered them, not jsonb's.
      expect(Object.keys(m.properties.headers ?? {})).toEqual(["trace-id", "zz", "Idempotency-Key"]);
      expect(Object.keys(m.properties.headers ?? {}).filter((h) => h.startsWith("x-"))).toEqual([]);
      expect(m.fields.routingKey).toBe(key === "q-1" ? "quorum.us" : "orders.eu");
      expect(JSON.parse(m.content.toString()).replay_count).toBe(1);
    }
  });

  it("an AFC source reads raw taps; a replay with the origin sink refuses records that have no origin (422 naming them)", async () => {
    const own = await broker.topology();
    const tap = JSON.parse(afcRecord({ eventId: "e-77", deviceId: "dev-7", at: 10 })).raw_payload;
    await broker.publish(own.exchange, "orders.afc", [Buffer.from(JSON.stringify(tap))], () => props("e-77"));
    await broker.rejectAll(own.work, 1);
    await broker.waitForCount(own.dlq, 1);
    const name = await addSource(db, {
      name: `rabbit-afc-${own.suffix}`,
      type: "rabbitmq",
      url: RABBITMQ_URL,
      kind: "afc",
      options: { queue: own.dlq },
    });
    expect(await pull(db, name)).toMatchObject({ pulled: 1, created: 1, unreadable: 0 });
    const [record] = await pulledRecords(db, name);
    expect(record?.idempotency_key).toMatch(/^[0-9a-f]{64}$/);
    const { rows } = await db.pool.query("SELECT reason, device_id FROM dead_letter WHERE id = $1", [record!.id]);
    expect(rows[0]).toMatchObject({ device_id: "dev-7", reason: "dead-lettered by rabbitmq: rejected" });
    await db.pool.query("UPDATE dead_letter SET status = 'approved' WHERE id = $1", [record!.id]);
    const { createBatch } = await import("../../../lib/replay/batch/create-batch");
    const { CreateBatchBody } = await import("../../../lib/replay/batch/batch-schemas");
    const plain = await db.pool.query<{ id: string }>(
      "INSERT INTO dead_letter (kind, source, idempotency_key, observed_at, first_seen_at, first_failure_reason, reason, reason_group, failure_class, status, payload) VALUES ('afc', 'posted', 'k-posted', now(), now(), 'r', 'r', 'r', 'transient', 'approved', '{}') RETURNING id::text AS id",
    );
    const body = CreateBatchBody.parse({ ids: [record!.id, plain.rows[0]!.id], sink: { type: "origin" }, ratePerSecond: 10 });
    await expect(createBatch(db.pool, body, users.creator, { now: new Date() })).rejects.toMatchObject({
      status: 422,
      issues: [{ path: "ids.1", message: expect.stringContaining("has no origin") }],
    });
  });
});
