import { Kafka, logLevel, Partitioners, type IHeaders, type KafkaMessage } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import type { SourceConnector } from "../../../lib/sources/connector";
import { openConnector } from "../../../lib/sources/registry.server";
import { pullSource } from "../../../lib/sources/pull-source";
import { spatialEnvelope, type TestUsers } from "../../replay/fixtures";
import { startKafkaMock, type KafkaMock } from "../../support/kafka-mock";
import { setTestAuthEnv, TEST_CTX } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource, pull, pulledRecords, replayToOrigin, supervisors } from "./origin-flow";

// Against librdkafka's protocol mock (tests/support/kafka-mock.ts): dead-letter records written the way Spring
// Kafka's DeadLetterPublishingRecoverer and Kafka Connect write them, pulled through a consumer group whose offsets
// move only after the store committed, and replayed to their original topics with key and headers.

setTestAuthEnv();

let mock: KafkaMock;
let kafka: Kafka;
let db: Db;
let users: TestUsers;
let n = 0;

beforeAll(async () => {
  mock = await startKafkaMock(3);
  kafka = new Kafka({ clientId: "redrive-test", brokers: mock.brokers, logLevel: logLevel.NOTHING });
  db = await testDb();
  users = await supervisors(db);
}, 60_000);

afterAll(async () => {
  await db?.pool.end();
  await closeDb();
  await mock?.stop();
});

// How Spring writes them: ByteBuffer.allocate(4).putInt(partition), ByteBuffer.allocate(8).putLong(offset/timestamp).
const int32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const int64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
};

function springHeaders(topic: string, partition: number, offset: bigint, message: string): IHeaders {
  return {
    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "kafka_dlt-original-topic": topic,
    "kafka_dlt-original-partition": int32(partition),
    "kafka_dlt-original-offset": int64(offset),
    "kafka_dlt-original-timestamp": int64(1_764_600_000_123n),
    "kafka_dlt-original-timestamp-type": "CreateTime",
    "kafka_dlt-original-consumer-group": "parcel-workers",
    "kafka_dlt-exception-fqcn": "org.springframework.kafka.listener.ListenerExecutionFailedException",
    "kafka_dlt-exception-cause-fqcn": "java.lang.IllegalArgumentException",
    "kafka_dlt-exception-message": message,
    "kafka_dlt-exception-stacktrace": "java.lang.IllegalArgumentException: …\n\tat com.example.ParcelListener.on(ParcelListener.java:42)",
  };
}

function connectHeaders(topic: string, partition: number, offset: number): IHeaders {
  return {
    "__connect.errors.topic": topic,
    "__connect.errors.partition": String(partition),
    "__connect.errors.offset": String(offset),
    "__connect.errors.connector.name": "parcels-postgis-sink",
    "__connect.errors.task.id": "0",
    "__connect.errors.stage": "VALUE_CONVERTER",
    "__connect.errors.class.name": "org.apache.kafka.connect.json.JsonConverter",
    "__connect.errors.exception.class.name": "org.apache.kafka.connect.errors.DataException",
    "__connect.errors.exception.message": "Converting byte[] to Kafka Connect data failed due to serialization error",
    "__connect.errors.exception.stacktrace": "org.apache.kafka.connect.errors.DataException: …",
  };
}

async function produce(topic: string, messages: { key: string | null; value: string; headers?: IHeaders }[]): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/** Every record of `topic` from the start, read by a fresh group, once `count` have arrived. */
async function consumeAll(topic: string, count: number): Promise<{ partition: number; message: KafkaMessage }[]> {
  const consumer = kafka.consumer({ groupId: `reader-${++n}-${Date.now()}`, maxWaitTimeInMs: 200 });
  const got: { partition: number; message: KafkaMessage }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let done!: () => void;
    const enough = new Promise<void>((r) => (done = r));
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        got.push({ partition, message });
        if (got.length >= count) done();
      },
    });
    await Promise.race([enough, new Promise((r) => setTimeout(r, 30_000))]);
    return got;
  } finally {
    await consumer.disconnect();
  }
}

const text = (h: IHeaders[string]) => (Buffer.isBuffer(h) ? h.toString("utf8") : String(h));

/** Creates a topic (the mock creates one on first metadata request) and waits until it is listed. */
async function topic(name: string): Promise<string> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.fetchTopicMetadata({ topics: [name] }).catch(() => undefined);
    for (let i = 0; i < 50 && !(await admin.listTopics()).includes(name); i++) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await admin.disconnect();
  }
  return name;
}

describe("a Kafka dead-letter topic", () => {
  it("decodes both header conventions into the origin, takes through the group and commits only what is acknowledged", async () => {
    const dlt = await topic(`parcels-dlt-${++n}`);
    await produce(dlt, [
      { key: "parcel-1", value: '{"kind":"spatial"}', headers: springHeaders("parcels", 5, 9_007_199_254_740_993n, "ring not closed") },
      { key: null, value: "not json", headers: connectHeaders("parcels-raw", 2, 77) },
      { key: "k", value: "plain", headers: { "x-note": "no dead-letter context" } },
    ]);
    const c: SourceConnector = await openConnector({
      name: "it-kafka",
      type: "kafka",
      url: mock.url,
      options: { topic: dlt, group: `g-${n}` },
    });
    try {
      await c.provision();
      expect(await c.waiting()).toBe(3);
      // A take without an ack between means the last store failed: what it handed out comes first again.
      const first = await c.take(10, 5000);
      expect(first.length).toBeGreaterThan(0);
      const again = await c.take(10, 0);
      expect(again.slice(0, first.length).map((m) => m.origin.position)).toEqual(first.map((m) => m.origin.position));
      // Acknowledging commits those offsets and no others.
      await c.ack(again);
      expect(await c.waiting()).toBe(3 - again.length);
      const taken = [...again];
      for (let i = 0; i < 10 && taken.length < 3; i++) {
        const page = await c.take(10, 2000);
        await c.ack(page);
        taken.push(...page);
      }
      expect(taken).toHaveLength(3);
      expect(await c.waiting()).toBe(0);
      const spring = taken.find((m) => m.origin.properties.convention === "spring")!;
      expect(spring.origin).toMatchObject({
        sourceType: "kafka",
        destination: { type: "kafka", topic: "parcels", partition: 5, offset: "9007199254740993", dlqTopic: dlt },
        deathReason: "org.springframework.kafka.listener.ListenerExecutionFailedException: ring not closed",
        messageId: "parcels:5:9007199254740993",
        publishedAt: "2025-12-01T14:40:00.123Z",
        properties: {
          key: "parcel-1",
          causeClass: "java.lang.IllegalArgumentException",
          consumerGroup: "parcel-workers",
          timestampType: "CreateTime",
        },
      });
      expect(spring.origin.position).toMatch(new RegExp(`^${dlt}:\\d:\\d+@${spring.origin.diedAt}$`));
      expect(spring.origin.headers).toMatchObject({
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "kafka_dlt-original-partition": { base64: "AAAABQ==" },
      });
      const connect = taken.find((m) => m.origin.properties.convention === "kafka-connect")!;
      expect(connect.origin).toMatchObject({
        destination: { type: "kafka", topic: "parcels-raw", partition: 2, offset: "77" },
        deathReason:
          "org.apache.kafka.connect.errors.DataException: Converting byte[] to Kafka Connect data failed due to serialization error",
        properties: { key: null, connector: "parcels-postgis-sink", stage: "VALUE_CONVERTER", taskId: "0" },
      });
      const plain = taken.find((m) => m.origin.properties.convention === undefined)!;
      expect(plain.origin).toMatchObject({
        destination: { topic: "" },
        deathReason: null,
        headers: { "x-note": "no dead-letter context" },
      });

      await expect(c.ack([{ ...plain, receipt: { kind: "kafka" } }])).rejects.toMatchObject({ code: "invalid_receipt" });
    } finally {
      await c.close();
    }
  }, 90_000);

  it("refuses a topic that does not exist, naming it", async () => {
    const c = await openConnector({ name: "it-kafka", type: "kafka", url: mock.url, options: { topic: "no-such-dlt", group: "g" } });
    try {
      await expect(c.provision()).rejects.toMatchObject({
        code: "not_found",
        message: expect.stringContaining('topic "no-such-dlt" does not exist'),
      });
    } finally {
      await c.close();
    }
  });

  it("says a broker is unreachable, without the URL's password", async () => {
    const closed = await import("node:net").then(
      (net) =>
        new Promise<number>((resolve) => {
          const srv = net.createServer().listen(0, "127.0.0.1", () => {
            const port = (srv.address() as { port: number }).port;
            srv.close(() => resolve(port));
          });
        }),
    );
    const c = await openConnector({
      name: "it-kafka",
      type: "kafka",
      url: `kafka://svc:sekret-pw@127.0.0.1:${closed}`,
      options: { topic: "t" },
    });
    try {
      const err = await c.provision().then(
        () => null,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(err?.code).toBe("unreachable");
      expect(err?.message).toContain(`on kafka://127.0.0.1:${closed} failed`);
      expect(err?.message).not.toContain("sekret-pw");
    } finally {
      await c.close();
    }
  }, 60_000);

  it("a crash after the store committed and before the offsets did: the re-read stores nothing and counts no failure", async () => {
    const id = ++n;
    const dlt = await topic(`crash-dlt-${id}`);
    const bodies = [0, 1, 2, 3, 4, 5].map((i) => spatialEnvelope({ key: `crash-${id}-${i}`, observedAt: 100 + i, featureId: `f-${i}` }));
    await produce(
      dlt,
      bodies.map((value, i) => ({ key: `f-${i}`, value, headers: springHeaders("parcels", i % 4, BigInt(i), "boom") })),
    );
    const name = await addSource(db, {
      name: `kafka-crash-${id}`,
      type: "kafka",
      url: mock.url,
      kind: "spatial",
      options: { topic: dlt, group: "redrive" },
    });
    const config = { name, type: "kafka" as const, url: mock.url, options: { topic: dlt, group: "redrive" } };
    const target = { name, type: "kafka", kind: "spatial" as const };
    const opts = { waitMs: 5000, actor: TEST_CTX().actor, requestId: "test", clock: () => new Date() };

    // The process dies right after the storing transaction committed: the offsets are never committed.
    const dying = await openConnector(config);
    const crash = new Error("killed before the offsets were committed");
    await expect(pullSource(db.pool, target, { ...dying, ack: () => Promise.reject(crash) }, opts)).rejects.toBe(crash);
    await dying.close();
    const first = await pulledRecords(db, name);
    expect(first.length).toBeGreaterThan(0);

    // The next connection of the group reads the same records again.
    const next = await openConnector(config);
    try {
      expect(await next.waiting()).toBe(6);
      let counts = { pulled: 0, created: 0, duplicates: 0, unreadable: 0 };
      for (let i = 0; i < 5 && counts.pulled < 6; i++) {
        const c = await pullSource(db.pool, target, next, opts);
        counts = {
          pulled: counts.pulled + c.pulled,
          created: counts.created + c.created,
          duplicates: counts.duplicates + c.duplicates,
          unreadable: 0,
        };
      }
      expect(counts).toEqual({ pulled: 6, created: 6 - first.length, duplicates: first.length, unreadable: 0 });
      expect(await next.waiting()).toBe(0);
    } finally {
      await next.close();
    }
    const all = await pulledRecords(db, name);
    expect(all).toHaveLength(6);
    expect(all.map((r) => r.failure_count)).toEqual(all.map(() => 1));
    expect(all.filter((r) => first.some((f) => f.id === r.id))).toEqual(first);
  }, 120_000);

  it("replays to the original topic with the original key (same partition), its own headers without the DLQ context, and idempotency-key", async () => {
    const id = ++n;
    const dlt = await topic(`orders-dlt-${id}`);
    const original = await topic(`orders-${id}`);
    // A record the application wrote before, with the same key: the replayed one must land on its partition.
    await produce(original, [{ key: "parcel-9", value: "earlier record of parcel-9" }]);
    const [earlier] = await consumeAll(original, 1);
    await produce(dlt, [
      {
        key: "parcel-9",
        value: spatialEnvelope({ key: `replay-${id}-a`, observedAt: 100, featureId: "parcel-9" }),
        headers: { ...springHeaders(original, earlier!.partition, 0n, "listener failed"), tenant: "north", sig: Buffer.from([0xff, 0x00]) },
      },
      {
        key: null,
        value: spatialEnvelope({ key: `replay-${id}-b`, observedAt: 200, featureId: "parcel-10" }),
        headers: { tenant: "south" },
      },
    ]);
    const name = await addSource(db, {
      name: `kafka-replay-${id}`,
      type: "kafka",
      url: mock.url,
      kind: "spatial",
      options: { topic: dlt },
    });
    let counts = { pulled: 0 };
    for (let i = 0; i < 5 && counts.pulled < 2; i++) counts = { pulled: counts.pulled + (await pull(db, name)).pulled };
    const records = await pulledRecords(db, name);
    expect(records).toHaveLength(2);
    const withTopic = records.find((r) => r.idempotency_key === `replay-${id}-a`)!;
    expect(withTopic.origin.headerOrder).toEqual([...Object.keys(springHeaders(original, 0, 0n, "")), "tenant", "sig"]);
    expect(withTopic.origin.destination).toMatchObject({ type: "kafka", topic: original, partition: earlier!.partition });

    expect(
      await replayToOrigin(
        db,
        users,
        records.map((r) => r.id),
      ),
    ).toEqual({ applied: 1, poison: 1 });
    const { rows } = await db.pool.query<{ last_error: string | null }>("SELECT last_error FROM replay_item WHERE dead_letter_id = $1", [
      records.find((r) => r.idempotency_key === `replay-${id}-b`)!.id,
    ]);
    expect(rows[0]?.last_error).toMatch(/names no original topic/);

    const back = await consumeAll(original, 2);
    expect(back).toHaveLength(2);
    const replayed = back.find((r) => r.message.value?.toString() !== "earlier record of parcel-9")!;
    expect(replayed.partition).toBe(earlier!.partition);
    expect(replayed.message.key?.toString()).toBe("parcel-9");
    const headers = replayed.message.headers ?? {};
    // In the order they were sent (jsonb would have put tenant first), the idempotency key last.
    expect(Object.keys(headers)).toEqual(["traceparent", "tenant", "sig", "idempotency-key"]);
    expect(text(headers["idempotency-key"])).toBe(`replay-${id}-a`);
    expect(text(headers.tenant)).toBe("north");
    expect((headers.sig as Buffer).toString("hex")).toBe("ff00");
    const body = JSON.parse(replayed.message.value!.toString()) as { idempotency_key: string; replay_count: number };
    expect(body).toMatchObject({ idempotency_key: `replay-${id}-a`, replay_count: 1 });
  }, 180_000);
});
