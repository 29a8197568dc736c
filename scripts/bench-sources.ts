// `npm run bench:sources`: per broker (RabbitMQ, NATS JetStream, Redis Streams on this machine; Kafka as librdkafka's
// protocol mock, tests/support/kafka-mock.ts, since no Kafka broker runs here; SQS on a moto_server it starts), how
// fast a source is drained into Redrive (take → store → ack, through the ingest normalizer) and how fast its records
// go back to their origin with the origin sink unpaced (one worker, the engine's defaults). BENCH_SOURCE_COUNT sets
// the size, BENCH_SOURCE_BROKERS (e.g. "kafka,sqs") which brokers run.
import amqp from "amqplib";
import { UNSCOPED } from "../lib/scope/record-scope";
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy } from "@nats-io/jetstream";
import { connect, nanos } from "@nats-io/transport-node";
import { randomBytes } from "node:crypto";
import { Kafka, logLevel, Partitioners } from "kafkajs";
import { CreateQueueCommand, SendMessageBatchCommand, SQSClient } from "@aws-sdk/client-sqs";
import { createClient } from "redis";
import { SYSTEM_ACTOR } from "../lib/audit/actor";
import type { Db } from "../lib/db/client";
import { applyBatchAction } from "../lib/replay/batch/apply-batch-action";
import { CreateBatchBody } from "../lib/replay/batch/batch-schemas";
import { createBatch } from "../lib/replay/batch/create-batch";
import { startWorker } from "../lib/replay/engine/worker";
import { sharedNormalizePool } from "../lib/dead-letters/ingest/normalize-pool";
import { addSource, pullNow } from "../lib/sources/pull-now";
import { CreateSourceBody } from "../lib/sources/source-schemas";
import { createUser } from "../lib/auth/users";
import { startKafkaMock } from "../tests/support/kafka-mock";
import { benchDatabase } from "./bench-support";

const COUNT = Number(process.env.BENCH_SOURCE_COUNT ?? 5000);
const ONLY = process.env.BENCH_SOURCE_BROKERS?.split(",").map((b) => b.trim());
const run = randomBytes(3).toString("hex");
const say = (m: string) => console.error(`[bench] ${m}`);
const ctx = () => ({ actor: SYSTEM_ACTOR, now: new Date(), requestId: null });

/** A tap with its own identity per broker, so the brokers' records never share a key. */
function tap(i: number, broker: string): string {
  return JSON.stringify({
    event_id: `bench-${run}-${broker}-${i}`,
    device_id: `dev-${i % 200}`,
    fare_amount_cents: 250,
    tap_timestamp: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
  });
}

async function measure(
  db: Db,
  users: { a: string; b: string },
  s: Setup,
): Promise<{ pullPerSec: number; replayPerSec: number; outcomes: string }> {
  const name = (await addSource(db.pool, CreateSourceBody.parse(s.body), ctx())).name;
  await s.fill?.();
  // As a server or worker does at start (instrumentation.ts, lib/runtime): the threads' start-up is not the pull's.
  await sharedNormalizePool()?.warmed();
  const t0 = performance.now();
  const counts = await pullNow(db.pool, name, { actor: SYSTEM_ACTOR, requestId: null, clock: () => new Date() });
  const pullMs = performance.now() - t0;
  if (counts.created !== COUNT) {
    const { rows } = await db.pool.query(
      "SELECT kind, idempotency_key, failure_count, origin_source, left(reason, 60) AS reason FROM dead_letter LIMIT 3",
    );
    throw new Error(`pulled ${JSON.stringify(counts)}, expected ${COUNT} created: ${JSON.stringify(rows)}`);
  }
  const ids = await db.pool.query<{ id: string }>(
    "UPDATE dead_letter SET status = 'approved' WHERE origin_source = $1 RETURNING id::text AS id",
    [name],
  );
  const creator = { scope: UNSCOPED, userId: users.a, email: "a@bench", role: "supervisor" };
  const approver = { scope: UNSCOPED, userId: users.b, email: "b@bench", role: "supervisor" };
  const input = CreateBatchBody.parse({
    ids: ids.rows.map((r) => r.id),
    sink: { type: "origin" },
    ratePerSecond: 1_000_000,
    pageSize: 500,
  });
  const { id } = await createBatch(db.pool, input, creator, { now: new Date() });
  await applyBatchAction(db.pool, id, "approve", approver, { now: new Date() });
  const worker = startWorker({ db, log: () => {} });
  const t1 = performance.now();
  await applyBatchAction(db.pool, id, "start", creator, { now: new Date() });
  for (;;) {
    const { rows } = await db.pool.query<{ status: string }>("SELECT status::text AS status FROM replay_batch WHERE id = $1", [id]);
    if (["completed", "failed", "cancelled"].includes(rows[0]!.status)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const replayMs = performance.now() - t1;
  await worker.stop();
  const { rows } = await db.pool.query<{ status: string; n: number }>(
    "SELECT status::text AS status, count(*)::int AS n FROM replay_item WHERE batch_id = $1 GROUP BY 1 ORDER BY 1",
    [id],
  );
  return {
    pullPerSec: (COUNT / pullMs) * 1000,
    replayPerSec: (COUNT / replayMs) * 1000,
    outcomes: rows.map((r) => `${r.status} ${r.n}`).join(", "),
  };
}

async function rabbitmq(): Promise<Setup> {
  const conn = await amqp.connect("amqp://guest:guest@127.0.0.1:5672");
  const ch = await conn.createConfirmChannel();
  const [x, dlx, work, dlq] = [`bench.x.${run}`, `bench.dlx.${run}`, `bench.work.${run}`, `bench.dlq.${run}`];
  await ch.assertExchange(x, "topic", { durable: false });
  await ch.assertExchange(dlx, "fanout", { durable: false });
  await ch.assertQueue(dlq, { durable: false });
  await ch.bindQueue(dlq, dlx, "");
  await ch.assertQueue(work, { durable: false, deadLetterExchange: dlx, messageTtl: 0 });
  await ch.bindQueue(work, x, "taps.#");
  // Dead-lettered by the broker itself (expired at once: x-death reason "expired"), a quick way to fill a DLQ.
  for (let i = 0; i < COUNT; i++) ch.publish(x, "taps.eu", Buffer.from(tap(i, "rabbitmq")), { messageId: `m-${i}` });
  await ch.waitForConfirms();
  while ((await ch.checkQueue(dlq)).messageCount < COUNT) await new Promise((r) => setTimeout(r, 100));
  // What goes back lands in the work queue again and expires into the DLQ: purge both before deleting.
  return {
    body: { name: `bench-rabbit-${run}`, type: "rabbitmq", url: "amqp://guest:guest@127.0.0.1:5672", kind: "afc", options: { queue: dlq } },
    cleanup: async () => {
      for (const q of [work, dlq]) await ch.deleteQueue(q).catch(() => {});
      for (const e of [x, dlx]) await ch.deleteExchange(e).catch(() => {});
      await conn.close();
    },
  };
}

async function nats(): Promise<Setup> {
  const nc = await connect({ servers: "127.0.0.1:4222" });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const [stream, subject] = [`BENCH_${run}`, `bench_${run}`];
  await jsm.streams.add({ name: stream, subjects: [`${subject}.>`], retention: RetentionPolicy.Limits });
  await jsm.consumers.add(stream, { durable_name: "app", ack_policy: AckPolicy.Explicit, ack_wait: nanos(200), max_deliver: 1 });
  const name = `bench-nats-${run}`;
  return {
    body: { name, type: "nats", url: "nats://127.0.0.1:4222", kind: "afc", options: { stream, consumer: "app" } },
    // After the source exists (it captures advisories from then on): publish and let the consumer give up.
    fill: async () => {
      for (let i = 0; i < COUNT; i++) await js.publish(`${subject}.taps`, new TextEncoder().encode(tap(i, "nats")));
      const c = await js.consumers.get(stream, "app");
      const adv = `REDRIVE_ADVISORIES_${name}`;
      while (((await jsm.streams.info(adv).catch(() => null))?.state.messages ?? 0) < COUNT) {
        const batch = await c.fetch({ max_messages: 1000, expires: 1000 });
        for await (const m of batch) void m;
      }
    },
    cleanup: async () => {
      for await (const s of jsm.streams.names()) if (s === stream || s === `REDRIVE_ADVISORIES_${name}`) await jsm.streams.delete(s);
      await nc.close();
    },
  };
}

async function redis(): Promise<Setup> {
  const client = createClient({ url: "redis://127.0.0.1:6379" });
  await client.connect();
  const stream = `bench:${run}`;
  await client.xGroupCreate(stream, "app", "$", { MKSTREAM: true });
  for (let i = 0; i < COUNT; i += 500) {
    const multi = client.multi();
    for (let j = i; j < Math.min(COUNT, i + 500); j++) multi.xAdd(stream, "*", { body: tap(j, "redis") });
    await multi.exec();
  }
  await client.xReadGroup("app", "w", { key: stream, id: ">" }, { COUNT: COUNT + 1 });
  return {
    body: {
      name: `bench-redis-${run}`,
      type: "redis",
      url: "redis://127.0.0.1:6379",
      kind: "afc",
      options: { stream, group: "app", minIdleMs: 0, maxDeliveries: 1, gatePrefix: `bench:${run}:gate:` },
    },
    cleanup: async () => {
      const keys = await client.keys(`bench:${run}*`);
      if (keys.length) await client.del(keys);
      await client.quit();
    },
  };
}

async function kafka(): Promise<Setup> {
  const mock = await startKafkaMock(3);
  const client = new Kafka({ clientId: "bench", brokers: mock.brokers, logLevel: logLevel.NOTHING });
  const [dlt, original] = [`bench-dlt-${run}`, `bench-taps-${run}`];
  const admin = client.admin();
  await admin.connect();
  // The mock creates a topic (4 partitions) on the first metadata request that names it.
  await admin.fetchTopicMetadata({ topics: [dlt, original] });
  await admin.disconnect();
  const producer = client.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  // As Spring Kafka's DeadLetterPublishingRecoverer writes them: the original partition as a 4-byte int.
  const partition = Buffer.alloc(4);
  for (let i = 0; i < COUNT; i += 500) {
    const messages = [];
    for (let j = i; j < Math.min(COUNT, i + 500); j++) {
      messages.push({
        key: `dev-${j % 200}`,
        value: tap(j, "kafka"),
        headers: {
          "kafka_dlt-original-topic": original,
          "kafka_dlt-original-partition": partition,
          "kafka_dlt-exception-fqcn": "java.lang.IllegalStateException",
          "kafka_dlt-exception-message": "fare rule missing",
        },
      });
    }
    await producer.send({ topic: dlt, acks: -1, messages });
  }
  await producer.disconnect();
  return {
    body: { name: `bench-kafka-${run}`, type: "kafka", url: mock.url, kind: "afc", options: { topic: dlt } },
    cleanup: () => mock.stop(),
  };
}

async function sqs(): Promise<Setup> {
  const { startMotoServer } = await import("../tests/support/moto-server");
  const moto = await startMotoServer();
  const client = new SQSClient({
    region: "us-east-1",
    endpoint: moto.endpoint,
    credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
  });
  const work = (await client.send(new CreateQueueCommand({ QueueName: `bench-work-${run}` }))).QueueUrl!;
  const dlq = (await client.send(new CreateQueueCommand({ QueueName: `bench-dlq-${run}` }))).QueueUrl!;
  // Sent to the DLQ directly (what a redrive policy would have moved there), ten per call, as SQS allows.
  for (let i = 0; i < COUNT; i += 10) {
    const entries = Array.from({ length: Math.min(10, COUNT - i) }, (_, j) => ({ Id: String(j), MessageBody: tap(i + j, "sqs") }));
    await client.send(new SendMessageBatchCommand({ QueueUrl: dlq, Entries: entries }));
  }
  return {
    body: {
      name: `bench-sqs-${run}`,
      type: "sqs",
      url: dlq.replace("http://", "http://bench:bench@"),
      kind: "afc",
      options: { sourceQueueUrl: work },
    },
    cleanup: async () => {
      client.destroy();
      await moto.stop();
    },
  };
}

type Setup = { body: unknown; fill?: () => Promise<void>; cleanup: () => Promise<void> };

const bench = await benchDatabase("redrive_bench_sources");
try {
  const a = await createUser(bench.db.pool, { email: `a-${run}@bench.local`, role: "supervisor", password: "bench-password-1" }, ctx());
  const b = await createUser(bench.db.pool, { email: `b-${run}@bench.local`, role: "supervisor", password: "bench-password-2" }, ctx());
  const users = { a: a.user.id, b: b.user.id };
  console.log(`broker    dead letters  pull (take → store → ack)  replay to origin, unpaced   outcomes`);
  for (const [label, setup] of [
    ["rabbitmq", rabbitmq],
    ["nats", nats],
    ["redis", redis],
    ["kafka", kafka],
    ["sqs", sqs],
  ] as const) {
    if (ONLY && !ONLY.includes(label)) continue;
    say(`${label}: filling a DLQ with ${COUNT} AFC taps`);
    const s = await setup();
    try {
      const r = await measure(bench.db, users, s);
      console.log(
        `${label.padEnd(9)} ${String(COUNT).padStart(12)}  ${r.pullPerSec.toFixed(0).padStart(20)}/s  ${r.replayPerSec.toFixed(0).padStart(22)}/s   ${r.outcomes}`,
      );
    } finally {
      await s.cleanup();
    }
  }
} finally {
  await bench.drop();
}
