import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import { afcRecord, waitFor } from "../../replay/fixtures";
import { setTestAuthEnv } from "../auth-helpers";
import { testDb } from "../helpers";
import { addSource } from "./origin-flow";
import { Broker, RABBITMQ_URL, type Topology } from "./rabbitmq-broker";

// Several servers on one database (README "Running several servers"): two `redrive worker` processes run side by
// side while dead letters keep arriving in a RabbitMQ DLQ; the one holding the source's pull lease is SIGKILLed
// half-way, and the other takes the pull over once the lease runs out. Every message published ends as exactly
// one record: none lost with the killed process, none stored twice. The workers are black boxes (spawned, killed);
// only the lease holder is read from the source's row, to know which one to kill.

setTestAuthEnv();

const COUNT = 6000;
const WAVE = 500;
const LEASE_MS = 3000;

let db: Db;

beforeAll(async () => {
  db = await testDb();
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

function startWorker(): ChildProcess {
  return spawn(process.execPath, ["bin/redrive.mjs", "worker", "--lease-ms", String(LEASE_MS), "--no-maintenance", "--concurrency", "1"], {
    env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL },
    stdio: ["ignore", "ignore", process.env.REDRIVE_TEST_VERBOSE ? "inherit" : "ignore"],
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

interface Stored {
  records: number;
  keys: number;
  positions: number;
  maxFailures: number;
  holder: string | null;
}

async function stored(source: string): Promise<Stored> {
  const { rows } = await db.pool.query<{
    records: number;
    keys: number;
    positions: number;
    max_failures: number | null;
    holder: string | null;
  }>(
    `SELECT (SELECT count(*)::int FROM dead_letter WHERE origin_source = $1) AS records,
       (SELECT count(DISTINCT idempotency_key)::int FROM dead_letter WHERE origin_source = $1) AS keys,
       (SELECT count(*)::int FROM source_message WHERE source = $1) AS positions,
       (SELECT max(failure_count)::int FROM dead_letter WHERE origin_source = $1) AS max_failures,
       (SELECT locked_by FROM source WHERE name = $1 AND locked_until > now()) AS holder`,
    [source],
  );
  const r = rows[0]!;
  return { records: r.records, keys: r.keys, positions: r.positions, maxFailures: r.max_failures ?? 0, holder: r.holder };
}

/** The process a lease names: worker ids are `host:pid:…`. */
function holderOf(workers: ChildProcess[], lockedBy: string | null): ChildProcess | undefined {
  const pid = Number(lockedBy?.split(":")[1]);
  return workers.find((w) => w.pid === pid);
}

/** Messages rejected by the work queue's consumer, so the broker dead-letters them into the DLQ, in waves. */
async function publishWave(broker: Broker, t: Topology, from: number): Promise<void> {
  const bodies = Array.from({ length: WAVE }, (_, k) => {
    const i = from + k;
    return Buffer.from(
      JSON.stringify(JSON.parse(afcRecord({ eventId: `takeover-${t.suffix}-${i}`, deviceId: `dev-${i % 50}`, at: i })).raw_payload),
    );
  });
  await broker.publish(t.exchange, "orders.takeover", bodies, (k) => ({ messageId: `m-${from + k}` }));
  await broker.rejectAll(t.work, WAVE);
}

describe("the pull lease's holder SIGKILLed while another worker runs", () => {
  it(`RabbitMQ: ${COUNT} messages arriving in waves end as ${COUNT} records, the pull resumed by the other worker`, async () => {
    const broker = await Broker.connect();
    const workers: ChildProcess[] = [];
    try {
      const t = await broker.topology();
      const name = await addSource(db, {
        name: `takeover-rabbit-${t.suffix}`,
        type: "rabbitmq",
        url: RABBITMQ_URL,
        kind: "afc",
        options: { queue: t.dlq },
      });
      workers.push(startWorker(), startWorker());

      let published = 0;
      const publishing = (async () => {
        while (published < COUNT) {
          await publishWave(broker, t, published);
          published += WAVE;
          await new Promise((r) => setTimeout(r, 250));
        }
      })();

      // Half-way through what will arrive, kill whichever worker holds the lease at that moment.
      const before = await waitFor(
        "a worker to hold the lease with a third of the messages stored",
        async () => {
          const s = await stored(name);
          return s.records >= COUNT / 3 && holderOf(workers, s.holder) ? s : null;
        },
        120_000,
        20,
      );
      const victim = holderOf(workers, before.holder)!;
      const survivor = workers.find((w) => w !== victim)!;
      await kill(victim);
      const killedAt = Date.now();
      const atKill = (await stored(name)).records;
      const resumed = await waitFor(
        "the other worker to take the lease and store more",
        async () => {
          const s = await stored(name);
          return holderOf(workers, s.holder) === survivor && s.records > atKill ? s : null;
        },
        60_000,
        20,
      );
      const takeoverMs = Date.now() - killedAt;

      await publishing;
      await waitFor(
        "every message stored and the DLQ empty",
        async () => (await stored(name)).records >= COUNT && (await broker.channel.checkQueue(t.dlq)).messageCount === 0,
        120_000,
        200,
      );
      // A pull that was cut between its store and its ack hands those messages out again: let the survivor find them.
      await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
      const end = await stored(name);
      console.log(
        `[pull takeover] published ${published}, stored ${end.records} (distinct keys ${end.keys}, positions ${end.positions}), duplicates ${end.records - end.keys}; killed at ${atKill} stored, taken over in ${takeoverMs} ms (at ${resumed.records})`,
      );
      expect(atKill).toBeLessThan(COUNT); // the kill came mid-way
      expect(survivor.exitCode).toBeNull();
      expect({ records: end.records, keys: end.keys, positions: end.positions, maxFailures: end.maxFailures }).toEqual({
        records: COUNT,
        keys: COUNT,
        positions: COUNT,
        maxFailures: 1,
      });
      expect((await broker.channel.checkQueue(t.dlq)).messageCount).toBe(0);
      expect(takeoverMs).toBeLessThan(LEASE_MS + 10_000);
    } finally {
      await Promise.all(workers.map(kill));
      await broker.cleanup();
    }
  }, 300_000);
});
