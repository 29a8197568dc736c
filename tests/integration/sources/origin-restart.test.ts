import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RetentionPolicy } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { startWorker } from "../../../lib/replay/engine/worker";
import { approve, batchStatus, itemCounts, runningBatch, spatialEnvelope, waitFor, type TestUsers } from "../../replay/fixtures";
import { setTestAuthEnv } from "../auth-helpers";
import { testDb } from "../helpers";
import { addDyingConsumer, addStream, consumeBadly, openAdmin, publishWithHeaders } from "./nats-fixtures";
import { haveNatsServer, startPrivateNatsServer } from "./nats-server";
import { addSource, pull, pulledRecords, supervisors } from "./origin-flow";
import { Broker, Relay } from "./rabbitmq-broker";
import { connectAdmin, failDeliveries, startScratchRedis } from "./redis-helpers";

// A replay to origin through a broker restart: every key arrives. Duplicates can only be resends of publishes
// whose confirm was lost with the connection (RabbitMQ has no dedup gate); NATS's Nats-Msg-Id window and the
// Redis gate absorb them, so there each key arrives exactly once.

setTestAuthEnv();

const N = 150;
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

const envelopes = (prefix: string) =>
  Array.from({ length: N }, (_, i) => spatialEnvelope({ key: `${prefix}-${i}`, observedAt: i, featureId: `f-${i % 10}` }));

/** Replays `ids` to origin at 100/s and restarts the broker (`down`, a second, `up`) while it runs. */
async function replayThroughRestart(
  ids: string[],
  down: () => Promise<void>,
  up: () => Promise<void>,
): Promise<Record<string, number> & { resent: number }> {
  await approve(db, ids);
  const batchId = await runningBatch(db, users, { ids, sink: { type: "origin" }, ratePerSecond: 100, pageSize: 20, maxAttempts: 20 });
  const worker = startWorker({ db, log: () => {}, leaseMs: 3000, pollMs: 50, backoff: { baseMs: 50, maxMs: 500 } });
  try {
    await waitFor("a third of the batch to be sent", async () => ((await itemCounts(db.pool, batchId)).applied ?? 0) >= N / 3, 30_000);
    await down();
    await new Promise((r) => setTimeout(r, 1000));
    await up();
    await waitFor(
      "the batch to finish",
      async () => ["completed", "failed", "cancelled"].includes(await batchStatus(db, batchId)),
      120_000,
      200,
    );
  } finally {
    await worker.stop();
  }
  const { rows } = await db.pool.query<{ resent: number }>(
    "SELECT coalesce(sum(attempts), 0)::int AS resent FROM replay_item WHERE batch_id = $1",
    [batchId],
  );
  return { ...(await itemCounts(db.pool, batchId)), resent: rows[0]!.resent };
}

function tally(keys: string[]): { distinct: number; repeats: number } {
  const seen = new Set(keys);
  return { distinct: seen.size, repeats: keys.length - seen.size };
}

describe("replay to origin through a broker restart", () => {
  it("Redis (append-only file, restarted): every key added once — the gate absorbs resends", async () => {
    const dir = mkdtempSync(join(tmpdir(), "redrive-redis-"));
    const redis = await startScratchRedis(["--appendonly", "yes", "--appendfsync", "always", "--dir", dir]);
    const admin = await connectAdmin(redis.url);
    try {
      await admin.xGroupCreate("parcels", "app", "$", { MKSTREAM: true });
      for (const body of envelopes("rr")) await admin.xAdd("parcels", "*", { body });
      await failDeliveries(admin, "parcels", "app", "w", 1);
      const name = await addSource(db, {
        name: "restart-redis",
        type: "redis",
        url: redis.url,
        kind: "spatial",
        options: { stream: "parcels", group: "app", minIdleMs: 0, maxDeliveries: 1 },
      });
      expect((await pull(db, name)).created).toBe(N);
      const before = (await admin.xLen("parcels")) as number;
      const counts = await replayThroughRestart(
        (await pulledRecords(db, name)).map((r) => r.id),
        redis.stop,
        redis.start,
      );
      expect((counts.applied ?? 0) + (counts.deduped ?? 0)).toBe(N);
      const check = await connectAdmin(redis.url);
      const added = ((await check.xRange("parcels", "-", "+")) ?? []).slice(before);
      await check.quit();
      expect(tally(added.map((e) => JSON.parse((e.message as Record<string, string>).body!).idempotency_key))).toEqual({
        distinct: N,
        repeats: 0,
      });
    } finally {
      await admin.quit().catch(() => undefined);
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it.skipIf(!haveNatsServer)(
    "NATS JetStream (file store, killed and restarted): every key once — Nats-Msg-Id dedup absorbs resends",
    async () => {
      const server = await startPrivateNatsServer();
      const url = `nats://127.0.0.1:${server.port}`;
      const admin = await openAdmin(`127.0.0.1:${server.port}`);
      try {
        await addStream(admin, "PARCELS", "parcels", RetentionPolicy.Limits);
        await addDyingConsumer(admin, "PARCELS", "ingester", 1);
        const name = await addSource(db, {
          name: "restart-nats",
          type: "nats",
          url,
          kind: "spatial",
          options: { stream: "PARCELS", ackWaitMs: 2000 },
        });
        for (const b of envelopes("nr")) await publishWithHeaders(admin, "parcels.in", new TextEncoder().encode(b), []);
        const advisories = async () =>
          ((await admin.jsm.streams.info("REDRIVE_ADVISORIES_restart-nats").catch(() => null))?.state.messages ?? 0) >= N;
        await consumeBadly(admin, "PARCELS", "ingester", "never-ack", advisories);
        expect((await pull(db, name)).created).toBe(N);
        const lastSeq = (await admin.jsm.streams.info("PARCELS")).state.last_seq;
        await admin.nc.close();
        const counts = await replayThroughRestart(
          (await pulledRecords(db, name)).map((r) => r.id),
          server.kill,
          server.start,
        );
        expect((counts.applied ?? 0) + (counts.deduped ?? 0)).toBe(N);
        const check = await openAdmin(`127.0.0.1:${server.port}`);
        const keys: string[] = [];
        const info = await check.jsm.streams.info("PARCELS");
        for (let seq = lastSeq + 1; seq <= info.state.last_seq; seq++) {
          const m = await check.jsm.streams.getMessage("PARCELS", { seq }).catch(() => null);
          if (m) keys.push(JSON.parse(m.string()).idempotency_key);
        }
        await check.nc.close();
        expect(tally(keys)).toEqual({ distinct: N, repeats: 0 });
      } finally {
        await admin.nc.close().catch(() => undefined);
        await server.dispose();
      }
    },
    180_000,
  );

  it("RabbitMQ (every connection cut, as a restart does): every key arrives; repeats only for publishes whose confirm was lost", async () => {
    const broker = await Broker.connect();
    const relay = await Relay.start();
    try {
      const t = await broker.topology();
      const observer = `redrive.test.restart.${t.suffix}`;
      await broker.queue(observer, {});
      await broker.publish(
        t.exchange,
        "orders.eu",
        envelopes("qr").map((b) => Buffer.from(b)),
        (i) => ({ messageId: `m-${i}` }),
      );
      await broker.rejectAll(t.work, N);
      await broker.waitForCount(t.dlq, N);
      const name = await addSource(db, {
        name: `restart-rabbit-${t.suffix}`,
        type: "rabbitmq",
        url: relay.url(),
        kind: "spatial",
        options: { queue: t.dlq },
      });
      expect((await pull(db, name)).created).toBe(N);
      await broker.channel.bindQueue(observer, t.exchange, "#");
      let cut: NodeJS.Timeout | null = null;
      const counts = await replayThroughRestart(
        (await pulledRecords(db, name)).map((r) => r.id),
        async () => {
          relay.cut();
          // Refuse for a second, as a restarting broker does.
          cut = setInterval(() => relay.cut(), 20);
        },
        async () => {
          if (cut) clearInterval(cut);
        },
      );
      expect(counts.applied).toBe(N);
      const got = await broker.readAll(observer, 1500);
      const { distinct, repeats } = tally(got.map((m) => JSON.parse(m.content.toString()).idempotency_key));
      expect(distinct).toBe(N);
      // A repeat is a publish sent again after its confirm was lost: never more than the items' retries.
      expect(repeats).toBeLessThanOrEqual(counts.resent);
    } finally {
      await relay.stop();
      await broker.cleanup();
    }
  }, 180_000);
});
