import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { afcRecord, waitFor } from "../../replay/fixtures";
import { setTestAuthEnv } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource } from "./origin-flow";
import { Broker, RABBITMQ_URL } from "./rabbitmq-broker";
import { connectAdmin, deleteKeys, failDeliveries, REDIS_URL, runPrefix, type Admin } from "./redis-helpers";

// Crash safety of the pull: `redrive worker` processes drain a source and are SIGKILLed at random moments
// (between the take, the store's commit and the ack); whatever they leave behind is pulled again by the next one.
// At the end every dead letter is a record exactly once, the DLQ is empty and no record counts a second failure.

setTestAuthEnv();

const COUNT = 2000;
const KILLS = 5;

let db: Db;

beforeAll(async () => {
  db = await testDb();
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ["bin/redrive.mjs", "worker", "--lease-ms", "1500", "--no-maintenance", "--concurrency", "1"], {
    env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL },
    stdio: ["ignore", "ignore", process.env.REDRIVE_TEST_VERBOSE ? "inherit" : "ignore"],
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

async function stored(source: string): Promise<{ records: number; positions: number; maxFailures: number }> {
  const { rows } = await db.pool.query<{ records: number; positions: number; max_failures: number | null }>(
    `SELECT (SELECT count(*)::int FROM dead_letter WHERE origin_source = $1) AS records,
       (SELECT count(*)::int FROM source_message WHERE source = $1) AS positions,
       (SELECT max(failure_count)::int FROM dead_letter WHERE origin_source = $1) AS max_failures`,
    [source],
  );
  const r = rows[0]!;
  return { records: r.records, positions: r.positions, maxFailures: r.max_failures ?? 0 };
}

/** Workers killed KILLS times at random moments once the drain is under way, then one left to finish. */
async function drainWhileKilling(source: string, drained: () => Promise<boolean>): Promise<number> {
  let kills = 0;
  while (kills < KILLS) {
    const child = startWorker();
    const before = (await stored(source)).records;
    // Kill once this worker has started storing, at a random moment within its drain; once everything is stored,
    // at a random moment of its first rounds (a take of leftovers, an ack).
    await waitFor(
      "the worker to store something",
      async () => {
        const now = (await stored(source)).records;
        return now > before || now >= COUNT || child.exitCode !== null;
      },
      // A worker process takes 2–3 s to start on a quiet machine, far longer on a busy one.
      120_000,
      25,
    );
    const done = (await stored(source)).records >= COUNT;
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * (done ? 3000 : 400))));
    await kill(child);
    kills++;
  }
  const last = startWorker();
  try {
    await waitFor("the source to be drained", async () => (await stored(source)).records >= COUNT && (await drained()), 120_000, 200);
    // A last pull after everything is stored still acknowledges leftovers: give it a moment to find none.
    await new Promise((r) => setTimeout(r, 2500));
  } finally {
    await kill(last);
  }
  return kills;
}

// Each broker's taps are its own: the same tap pulled from a second source is the same dead letter failing again
// (one record, a second failure counted), which is not what these tests are about.
const taps = (broker: string) =>
  Array.from({ length: COUNT }, (_, i) => {
    const tap = JSON.parse(afcRecord({ eventId: `${broker}-crash-${i}`, deviceId: `dev-${i % 50}`, at: i })).raw_payload;
    return JSON.stringify(tap);
  });

describe("pulling while the puller is SIGKILLed", () => {
  it(`RabbitMQ: ${COUNT} rejected messages end as ${COUNT} records, the DLQ empty, no failure counted twice`, async () => {
    const broker = await Broker.connect();
    try {
      const t = await broker.topology();
      await broker.publish(
        t.exchange,
        "orders.crash",
        taps("rabbitmq").map((b) => Buffer.from(b)),
        (i) => ({ messageId: `m-${i}` }),
      );
      await broker.rejectAll(t.work, COUNT);
      await broker.waitForCount(t.dlq, COUNT, 30_000);
      const name = await addSource(db, {
        name: `crash-rabbit-${t.suffix}`,
        type: "rabbitmq",
        url: RABBITMQ_URL,
        kind: "afc",
        options: { queue: t.dlq },
      });
      const kills = await drainWhileKilling(name, async () => (await broker.channel.checkQueue(t.dlq)).messageCount === 0);
      expect(kills).toBeGreaterThanOrEqual(KILLS);
      expect(await stored(name)).toEqual({ records: COUNT, positions: COUNT, maxFailures: 1 });
      expect((await broker.channel.checkQueue(t.dlq)).messageCount).toBe(0);
    } finally {
      await broker.cleanup();
    }
  }, 600_000);

  it(`Redis: ${COUNT} entries a group never acknowledged end as ${COUNT} records, nothing pending, no failure counted twice`, async () => {
    const admin: Admin = await connectAdmin();
    const prefix = runPrefix();
    try {
      const stream = `${prefix}:crash`;
      await admin.xGroupCreate(stream, "app", "$", { MKSTREAM: true });
      for (const body of taps("redis")) await admin.xAdd(stream, "*", { body });
      await failDeliveries(admin, stream, "app", "app-worker", 1);
      const name = await addSource(db, {
        name: `crash-redis-${prefix.slice(-8)}`,
        type: "redis",
        url: REDIS_URL,
        kind: "afc",
        options: { stream, group: "app", minIdleMs: 0, maxDeliveries: 1 },
      });
      const kills = await drainWhileKilling(name, async () => (await admin.xPending(stream, "app")).pending === 0);
      expect(kills).toBeGreaterThanOrEqual(KILLS);
      expect(await stored(name)).toEqual({ records: COUNT, positions: COUNT, maxFailures: 1 });
      expect((await admin.xPending(stream, "app")).pending).toBe(0);
    } finally {
      await deleteKeys(admin, prefix);
      await admin.quit();
    }
  }, 600_000);
});
