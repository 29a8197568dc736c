import { randomBytes } from "node:crypto";
import { SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { AppError } from "../../../lib/errors/app-error";
import type { Origin, SourceConnector } from "../../../lib/sources/connector";
import { getSource, readSourceConfig } from "../../../lib/sources/manage-sources";
import { openConnector } from "../../../lib/sources/registry.server";
import { pullSource } from "../../../lib/sources/pull-source";
import { createSqsConnector } from "../../../lib/sources/sqs/connector";
import { sqsOptionsSchema } from "../../../lib/sources/sqs/options";
import { spatialEnvelope, type TestUsers } from "../../replay/fixtures";
import { motoSkip, startMotoServer, type MotoServer } from "../../support/moto-server";
import { setTestAuthEnv, TEST_CTX } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource, pull, pulledRecords, replayToOrigin, supervisors } from "./origin-flow";
import { depth, drain, failUntilDead, queuePair, send, sqsClient, type Sqs } from "./sqs-helpers";

// An SQS dead-letter queue as a source, against moto (an SQS-compatible server this file starts and stops):
// messages moved to the DLQ by a redrive policy are pulled with their attributes, deleted only after the store
// committed, recognised when handed out again, and replayed to their source queue (standard and FIFO).

setTestAuthEnv();

const skip = motoSkip();
// Sources without an access key in their URL use the AWS default chain: here, its environment variables.
process.env.AWS_ACCESS_KEY_ID = "AKIDCHAIN";
process.env.AWS_SECRET_ACCESS_KEY = "chain-secret";

let db: Db;
let users: TestUsers;
let moto: MotoServer;
let sqs: Sqs;
const run = randomBytes(3).toString("hex");

beforeAll(async () => {
  if (skip) return;
  moto = await startMotoServer();
  sqs = sqsClient(moto);
  db = await testDb();
  users = await supervisors(db);
});

afterAll(async () => {
  if (skip) return;
  sqs?.destroy();
  await moto?.stop();
  await db?.pool.end();
  await closeDb();
});

/** The DLQ's URL with an access key in its userinfo, as an admin stores it (moto takes any key). */
const withKey = (url: string) => url.replace("http://", "http://AKIDTEST:wJal%2Fs3cret%2Bkey@");

const envelopes = (prefix: string) => [
  spatialEnvelope({ key: `${prefix}-late`, observedAt: 300, featureId: "parcel-1" }),
  spatialEnvelope({ key: `${prefix}-early`, observedAt: 100, featureId: "parcel-1" }),
  spatialEnvelope({ key: `${prefix}-other`, observedAt: 200, featureId: "parcel-2" }),
];

describe.skipIf(skip !== null)("an SQS source", () => {
  it("pulls the messages a redrive policy moved to the DLQ, with their attributes, deletes them after the store, and replays them to the source queue in order per entity, attributes kept, key attached", async () => {
    const pair = await queuePair(sqs, `parcels-${run}`);
    for (const body of envelopes("std")) {
      await send(sqs, pair.sourceUrl, body, {
        attributes: { trace: { DataType: "String", StringValue: "t-1" }, tries: { DataType: "Number", StringValue: "7" } },
      });
    }
    await failUntilDead(sqs, pair, 3);
    const name = await addSource(db, {
      name: `sqs-${run}`,
      type: "sqs",
      url: withKey(pair.dlqUrl),
      kind: "spatial",
      options: { sourceQueueUrl: pair.sourceUrl },
    });
    // The access key is sealed and never shown.
    const view = await getSource(db.pool, name, new Date());
    expect(JSON.stringify(view)).not.toMatch(/s3cret|AKIDTEST/);
    // So is the source queue's URL (it may carry a key too): shown redacted, opened only to connect.
    const stored = await db.pool.query<{ options: string }>("SELECT options::text AS options FROM source WHERE name = $1", [name]);
    expect(stored.rows[0]?.options).not.toContain(new URL(pair.sourceUrl).host);
    expect(view.options).toMatchObject({ sourceQueueUrl: pair.sourceUrl });

    expect(await pull(db, name)).toEqual({ pulled: 3, created: 3, duplicates: 0, unreadable: 0 });
    expect(await depth(sqs, pair.dlqUrl)).toBe(0);
    const records = await pulledRecords(db, name);
    expect(records.map((r) => r.idempotency_key).sort()).toEqual(["std-early", "std-late", "std-other"]);
    for (const r of records) {
      expect(r.origin).toMatchObject({
        source: name,
        sourceType: "sqs",
        deathReason: "max_receive_count",
        destination: { type: "sqs", queueArn: null, queueUrl: pair.sourceUrl },
        headers: { trace: "t-1", tries: { dataType: "Number", value: "7" } },
      });
      expect(r.origin.position).toBe(`parcels-${run}-dlq/${r.origin_message_id}`);
      // Two failed receives on the source queue and Redrive's own.
      expect(r.origin.deliveryCount).toBeGreaterThanOrEqual(3);
      expect(r.origin.publishedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect(await pull(db, name)).toEqual({ pulled: 0, created: 0, duplicates: 0, unreadable: 0 });

    expect(
      await replayToOrigin(
        db,
        users,
        records.map((r) => r.id),
      ),
    ).toEqual({ applied: 3 });
    const back = await drain(sqs, pair.sourceUrl);
    const keys = back.map((m) => JSON.parse(m.Body!).idempotency_key as string);
    expect([...keys].sort()).toEqual(["std-early", "std-late", "std-other"]);
    expect(keys.indexOf("std-early")).toBeLessThan(keys.indexOf("std-late"));
    for (const m of back) {
      const body = JSON.parse(m.Body!);
      expect(body.replay_count).toBe(1);
      expect(m.MessageAttributes).toMatchObject({
        trace: { DataType: "String", StringValue: "t-1" },
        tries: { DataType: "Number", StringValue: "7" },
        "Idempotency-Key": { DataType: "String", StringValue: body.idempotency_key },
      });
    }
  });

  it("a page of many calls: every message is stored once and deleted, none left behind", async () => {
    const pair = await queuePair(sqs, `many-${run}`);
    const bodies = Array.from({ length: 45 }, (_, i) => spatialEnvelope({ key: `many-${i}`, observedAt: i, featureId: `f-${i}` }));
    for (let i = 0; i < bodies.length; i += 10) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: pair.dlqUrl,
          Entries: bodies.slice(i, i + 10).map((MessageBody, j) => ({ Id: String(j), MessageBody })),
        }),
      );
    }
    const name = await addSource(db, { name: `many-${run}`, type: "sqs", url: pair.dlqUrl, kind: "spatial", options: {} });
    // A standard queue may hand a message out twice (at-least-once; moto did under load, one receive among the
    // concurrent ones): the second copy is absorbed as a duplicate, never stored twice.
    const pulled = await pull(db, name);
    expect(pulled).toMatchObject({ created: 45, unreadable: 0 });
    expect(pulled.pulled).toBe(45 + pulled.duplicates);
    expect(pulled.duplicates).toBeLessThanOrEqual(2);
    expect(await depth(sqs, pair.dlqUrl)).toBe(0);
  });

  it("a crash between the store's commit and the delete changes nothing: the message comes back after the visibility timeout and is recognised", async () => {
    const pair = await queuePair(sqs, `crash-${run}`);
    for (const body of envelopes("crash")) await send(sqs, pair.sourceUrl, body);
    await failUntilDead(sqs, pair, 3);
    const name = await addSource(db, {
      name: `crash-${run}`,
      type: "sqs",
      url: pair.dlqUrl,
      kind: "spatial",
      options: { sourceQueueUrl: pair.sourceUrl, visibilityTimeoutSeconds: 2 },
    });
    const connector = await openConnector(await readSourceConfig(db.pool, name));
    // The process dies after the commit, before DeleteMessageBatch: the delete never happens, nor any extension.
    const crashing: SourceConnector = {
      ...connector,
      ack: async () => {
        await connector.close();
        throw new Error("killed before the delete");
      },
    };
    const target = { name, type: "sqs", kind: "spatial" as const };
    const ctx = { actor: TEST_CTX().actor, requestId: "test", clock: () => new Date() };
    await expect(pullSource(db.pool, target, crashing, ctx)).rejects.toThrow(/killed before the delete/);
    const stored = await pulledRecords(db, name);
    expect(stored).toHaveLength(3);
    expect(await depth(sqs, pair.dlqUrl)).toBe(3);

    // After the visibility timeout the next pull takes the same messages: nothing new, no extra failure, deleted.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await pull(db, name)).toEqual({ pulled: 3, created: 0, duplicates: 3, unreadable: 0 });
    const after = await pulledRecords(db, name);
    expect(after.map((r) => [r.id, r.failure_count])).toEqual(stored.map((r) => [r.id, r.failure_count]));
    expect(await depth(sqs, pair.dlqUrl)).toBe(0);
  });

  it("keeps taken messages invisible past the visibility timeout until they are deleted", async () => {
    const pair = await queuePair(sqs, `slow-${run}`);
    for (const body of envelopes("slow")) await send(sqs, pair.sourceUrl, body);
    await failUntilDead(sqs, pair, 3);
    const options = sqsOptionsSchema.parse({ sourceQueueUrl: pair.sourceUrl, visibilityTimeoutSeconds: 1 });
    const storing = await createSqsConnector({ name: "slow", url: pair.dlqUrl, options });
    const other = await createSqsConnector({ name: "other", url: pair.dlqUrl, options });
    try {
      const taken = await storing.take(10, 0);
      expect(taken).toHaveLength(3);
      // A store that takes three visibility timeouts: another reader still sees nothing.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await other.take(10, 0)).toEqual([]);
      await storing.ack(taken);
      expect(await depth(sqs, pair.dlqUrl)).toBe(0);
    } finally {
      await storing.close();
      await other.close();
    }
  });

  it("FIFO: the group id is kept and the stored key is the deduplication id, so SQS absorbs a resend", async () => {
    const pair = await queuePair(sqs, `fares-${run}.fifo`);
    const longKey = `k-${"x".repeat(140)}`;
    const bodies = [
      spatialEnvelope({ key: "fifo-1", observedAt: 100, featureId: "bus-7" }),
      spatialEnvelope({ key: longKey, observedAt: 200, featureId: "bus-7" }),
    ];
    for (const [i, body] of bodies.entries()) await send(sqs, pair.sourceUrl, body, { group: "bus-7", dedup: `orig-${i}` });
    await failUntilDead(sqs, pair, 2);
    const name = await addSource(db, {
      name: `fifo-${run}`,
      type: "sqs",
      url: pair.dlqUrl,
      kind: "spatial",
      options: { sourceQueueUrl: pair.sourceUrl },
    });
    expect(await pull(db, name)).toMatchObject({ pulled: 2, created: 2 });
    const records = await pulledRecords(db, name);
    for (const r of records) expect((r.origin as unknown as Origin).properties).toMatchObject({ MessageGroupId: "bus-7" });

    expect(
      await replayToOrigin(
        db,
        users,
        records.map((r) => r.id),
      ),
    ).toEqual({ applied: 2 });
    const back = await drain(sqs, pair.sourceUrl);
    expect(
      back.map((m) => [JSON.parse(m.Body!).idempotency_key, m.Attributes?.MessageGroupId, m.Attributes?.MessageDeduplicationId]),
    ).toEqual([
      ["fifo-1", "bus-7", "fifo-1"],
      [longKey, "bus-7", expect.stringMatching(/^[0-9a-f]{64}$/)],
    ]);

    // The same record published again within five minutes: SQS's deduplication takes it and adds nothing.
    const connector = await openConnector(await readSourceConfig(db.pool, name));
    try {
      const first = records[0]!;
      const again = await connector.publish({
        key: first.idempotency_key!,
        body: Buffer.from("{}"),
        origin: first.origin as unknown as Origin,
      });
      expect(again).toEqual({ outcome: "applied" });
      expect(await drain(sqs, pair.sourceUrl)).toEqual([]);
    } finally {
      await connector.close();
    }
  });

  it("sends to the queue SQS names in DeadLetterQueueSourceArn, and refuses with the reason when nothing names one", async () => {
    const pair = await queuePair(sqs, `arn-${run}`);
    const options = sqsOptionsSchema.parse({});
    const connector = await createSqsConnector({ name: "arn", url: pair.dlqUrl, options });
    const origin = (destination: Origin["destination"]): Origin => ({
      sourceType: "sqs",
      destination,
      deathReason: "max_receive_count",
      deliveryCount: 3,
      messageId: "m",
      position: "p",
      publishedAt: null,
      diedAt: null,
      headers: { trace: "t-9" },
      properties: {},
    });
    try {
      // moto does not set DeadLetterQueueSourceArn; real SQS does: the origin is written as SQS would have given it.
      const sent = await connector.publish({
        key: "arn-1",
        body: Buffer.from('{"a":1}'),
        origin: origin({ type: "sqs", queueArn: pair.sourceArn, queueUrl: null }),
      });
      expect(sent).toEqual({ outcome: "applied" });
      const back = await drain(sqs, pair.sourceUrl);
      expect(
        back.map((m) => [m.Body, m.MessageAttributes?.["Idempotency-Key"]?.StringValue, m.MessageAttributes?.trace?.StringValue]),
      ).toEqual([['{"a":1}', "arn-1", "t-9"]]);

      const refused = await connector.publish({
        key: "k",
        body: Buffer.from("{}"),
        origin: origin({ type: "sqs", queueArn: null, queueUrl: null }),
      });
      expect(refused).toMatchObject({
        outcome: "failed",
        retryable: false,
        error: expect.stringMatching(/DeadLetterQueueSourceArn.*sourceQueueUrl/),
      });
      const gone = await connector.publish({
        key: "k",
        body: Buffer.from("{}"),
        origin: origin({ type: "sqs", queueArn: `arn:aws:sqs:us-east-1:${moto.account}:no-such-queue-${run}`, queueUrl: null }),
      });
      expect(gone).toMatchObject({ outcome: "failed", retryable: false });
    } finally {
      await connector.close();
    }
  });

  it("a missing queue or an unreachable endpoint is an error that says so, quickly, without the secret", async () => {
    const name = await addSource(db, {
      name: `missing-${run}`,
      type: "sqs",
      url: withKey(`${moto.endpoint}/${moto.account}/no-such-${run}`),
      kind: "spatial",
      options: {},
    });
    const state = (await getSource(db.pool, name, new Date(), "manager")).state;
    expect(state.connected).toBe(false);
    expect(state.lastError).toMatch(/no-such/);
    expect(state.lastError).not.toMatch(/s3cret/);
    // Readers see what kind of failure it is, not SQS's words.
    const read = (await getSource(db.pool, name, new Date(), "reader")).state;
    expect(read.lastError).toBe("the queue, stream or topic the source reads does not exist");
    const err = await pull(db, name).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);

    const started = Date.now();
    const down = await createSqsConnector({
      name: "down",
      url: "http://AKID:wJal%2Fs3cret@127.0.0.1:9/123456789012/q",
      options: sqsOptionsSchema.parse({}),
    });
    const refused = await down.provision().catch((e: unknown) => e as Error & { code?: string });
    await down.close();
    expect(refused).toMatchObject({ name: "SqsSourceError", code: "unreachable" });
    expect((refused as Error).message).not.toMatch(/s3cret/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
