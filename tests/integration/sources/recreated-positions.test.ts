import { RetentionPolicy } from "@nats-io/jetstream";
import { UNSCOPED } from "../../../lib/scope/record-scope";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { LookupQuerySchema } from "../../../lib/forensics/forensics-schemas";
import { lookup } from "../../../lib/forensics/lookup";
import { openConnector } from "../../../lib/sources/registry.server";
import { pullSource } from "../../../lib/sources/pull-source";
import { spatialEnvelope, type TestUsers } from "../../replay/fixtures";
import { startKafkaMock } from "../../support/kafka-mock";
import { setTestAuthEnv, TEST_CTX } from "../auth-helpers";
import { testDb } from "../helpers";
import { addDyingConsumer, addStream, consumeBadly, NATS_URL, openAdmin, publishWithHeaders, runNames, type Admin } from "./nats-fixtures";
import { addSource, pull, pulledRecords, replayToOrigin, supervisors } from "./origin-flow";
import { Broker, RABBITMQ_URL } from "./rabbitmq-broker";

// A broker position names one message instance: a NATS stream or Kafka topic deleted and created again under its
// name, or a RabbitMQ message that dies again after a replay, brings new dead letters to old-looking places, and
// every one of them is stored — none acknowledged away as "already stored".

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

const positionsOf = async (source: string) =>
  (await db.pool.query<{ position: string }>("SELECT position FROM source_message WHERE source = $1 ORDER BY position", [source])).rows.map(
    (r) => r.position,
  );

describe("a NATS stream deleted and created again under the same name", () => {
  let admin: Admin;
  const names = runNames();

  beforeAll(async () => {
    admin = await openAdmin();
  });
  afterAll(async () => {
    await names.cleanUp(admin);
    await admin.nc.close();
  });

  async function dieAll(stream: string, subject: string, source: string, keys: string[], advisoriesBefore: number): Promise<void> {
    for (const key of keys) {
      await publishWithHeaders(
        admin,
        `${subject}.parcels`,
        new TextEncoder().encode(spatialEnvelope({ key, observedAt: 100, featureId: key })),
        [],
      );
    }
    const dead = async () =>
      ((await admin.jsm.streams.info(`REDRIVE_ADVISORIES_${source}`).catch(() => null))?.state.last_seq ?? 0) >=
      advisoriesBefore + keys.length;
    await consumeBadly(admin, stream, "worker", "never-ack", dead);
  }

  it("stores the new stream's dead letters at sequences 1–3 although the old stream's 1–3 were stored", async () => {
    const { stream, subject, source } = names.next();
    await addStream(admin, stream, subject, RetentionPolicy.Limits);
    await addDyingConsumer(admin, stream, "worker", 1);
    const name = await addSource(db, { name: source, type: "nats", url: NATS_URL, kind: "spatial", options: { stream, ackWaitMs: 2000 } });
    await dieAll(stream, subject, source, ["old-1", "old-2", "old-3"], 0);
    expect(await pull(db, name)).toMatchObject({ pulled: 3, created: 3 });

    await admin.jsm.streams.delete(stream);
    await addStream(admin, stream, subject, RetentionPolicy.Limits);
    await addDyingConsumer(admin, stream, "worker", 1);
    await dieAll(stream, subject, source, ["new-1", "new-2", "new-3"], 3);
    expect(await pull(db, name)).toEqual({ pulled: 3, created: 3, duplicates: 0, unreadable: 0 });

    const records = await pulledRecords(db, name);
    expect(records.map((r) => r.idempotency_key).sort()).toEqual(["new-1", "new-2", "new-3", "old-1", "old-2", "old-3"]);
    const positions = await positionsOf(name);
    expect(positions).toHaveLength(6);
    // Each sequence twice, once per instance of the stream.
    expect(new Set(positions.map((p) => p.split("@")[0])).size).toBe(3);
    // Nothing left over: every advisory was settled.
    expect(await pull(db, name)).toMatchObject({ pulled: 0 });
    // An investigator pastes the place NATS's tools show: both instances' first messages are found.
    const found = await lookup(db.pool, UNSCOPED, LookupQuerySchema.parse({ q: `${stream}:1` }), null);
    expect(found.records.map((r) => r.matchedOn)).toEqual([["broker_position"], ["broker_position"]]);
  }, 90_000);
});

describe("a RabbitMQ message that dies again after its replay", () => {
  it("gets a new position and counts as a new failure, although its message_id and body are the same", async () => {
    const broker = await Broker.connect();
    try {
      const t = await broker.topology();
      const body = spatialEnvelope({ key: "again-1", observedAt: 100, featureId: "f-again" });
      // The producer's message_id is the key, which is also what a replay sends: only the death tells them apart.
      const props = () => ({ messageId: "again-1", contentType: "application/json" });
      await broker.publish(t.exchange, "orders.eu", [Buffer.from(body)], props);
      await broker.rejectAll(t.work, 1);
      await broker.waitForCount(t.dlq, 1);
      const name = await addSource(db, {
        name: `rabbit-again-${t.suffix}`,
        type: "rabbitmq",
        url: RABBITMQ_URL,
        kind: "spatial",
        options: { queue: t.dlq },
      });
      expect(await pull(db, name)).toMatchObject({ pulled: 1, created: 1 });
      const [record] = await pulledRecords(db, name);

      // x-death's time is in seconds: the next death is in a later one.
      await new Promise((r) => setTimeout(r, 1100));
      expect(await replayToOrigin(db, users, [record!.id])).toEqual({ applied: 1 });
      await broker.rejectAll(t.work, 1);
      await broker.waitForCount(t.dlq, 1);
      expect(await pull(db, name)).toMatchObject({ pulled: 1 });
      await broker.waitForCount(t.dlq, 0);

      const positions = await positionsOf(name);
      expect(positions).toHaveLength(2);
      expect(positions.every((p) => p.startsWith(`${t.dlq}/again-1@`))).toBe(true);
      const [after] = await pulledRecords(db, name);
      expect(after?.failure_count).toBe(2);
    } finally {
      await broker.cleanup();
    }
  }, 90_000);
});

describe("a Kafka dead-letter topic created again under the same name", () => {
  it("stores the new topic's records at offsets the old topic's records were stored at", async () => {
    const topic = "parcels-dlt-recreated";
    const source = { name: "kafka-recreated", type: "kafka", kind: "spatial" as const };
    const pullFrom = async (url: string) => {
      const c = await openConnector({ name: source.name, type: "kafka", url, options: { topic, group: "redrive" } });
      try {
        await c.provision();
        return await pullSource(db.pool, source, c, { waitMs: 5000, actor: TEST_CTX().actor, requestId: null, clock: () => new Date() });
      } finally {
        await c.close();
      }
    };
    // The mock cannot delete a topic; a second mock cluster is the same topic name with offsets from 0 again and
    // the consumer group's offsets gone, which is what deleting and creating the topic does.
    for (const [round, keys] of [
      [1, ["k-old-1", "k-old-2"]],
      [2, ["k-new-1", "k-new-2"]],
    ] as const) {
      const mock = await startKafkaMock(1);
      try {
        const kafka = new Kafka({ clientId: "redrive-test", brokers: mock.brokers, logLevel: logLevel.NOTHING });
        const producer = kafka.producer();
        await producer.connect();
        // One partition key for all, so both rounds use offsets 0 and 1 of the same partition.
        await producer.send({
          topic,
          acks: -1,
          messages: keys.map((key) => ({ key: "parcel", value: spatialEnvelope({ key, observedAt: 100, featureId: key }) })),
        });
        await producer.disconnect();
        expect(await pullFrom(mock.url), `round ${round}`).toMatchObject({ pulled: 2, created: 2 });
      } finally {
        await mock.stop();
      }
    }
    const records = await pulledRecords(db, source.name);
    expect(records.map((r) => r.idempotency_key).sort()).toEqual(["k-new-1", "k-new-2", "k-old-1", "k-old-2"]);
    const positions = await positionsOf(source.name);
    expect(positions).toHaveLength(4);
    expect(new Set(positions.map((p) => p.split("@")[0])).size).toBe(2);
  }, 120_000);
});
