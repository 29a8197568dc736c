// `npm run bench:replay`: the replay engine against graphile-worker on the same PostgreSQL, in one run.
//  1. unpaced drain of 100,000 approved records (half AFC taps, half spatial features, both re-validated)
//     through the built-in ledger with 1, 2 and 4 worker processes;
//  2. graphile-worker 0.17 draining 100,000 no-op jobs in its best configuration (localQueue 500, batched
//     completion with no delay, jobs added with one add_jobs call) — the reference;
//  3. the write floor: the writes each item needs, in one SQL statement per page and no application code
//     (scripts/bench/write-floor.ts), with and without marking the records replayed — what parity would take;
//  4. pacing accuracy at 10, 100 and 1,000 records/s with 1 and 4 workers: achieved rate and worst 1-s window.
// Uses a dedicated database on the resolved server (DATABASE_URL, else the embedded one), dropped at the end.
//   --records N (default 100000)  --skip-graphile  --skip-floor  --skip-pacing  --workers 1,2,4 (--workers "" skips the drains)
import { spawn, type ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import pg from "pg";
import { createDb, type Db } from "../lib/db/client";
import { applyMigrations } from "../lib/db/migrate";
import { connectionFields } from "../lib/db/pg-adapter";
import { resolveDatabase } from "../lib/db/resolve";
import { createBatch } from "../lib/replay/batch/create-batch";
import { applyBatchAction } from "../lib/replay/batch/apply-batch-action";
import { CreateBatchBody } from "../lib/replay/batch/batch-schemas";
import { bulkApproved, type TestUsers } from "../tests/replay/fixtures";
import { benchGraphile } from "./bench/graphile-reference";
import { benchWriteFloor, type FloorResult } from "./bench/write-floor";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "100000" },
    workers: { type: "string", default: "1,2,4" },
    "skip-graphile": { type: "boolean", default: false },
    "skip-floor": { type: "boolean", default: false },
    "skip-pacing": { type: "boolean", default: false },
  },
});
const RECORDS = Number(values.records);
const say = (m: string) => console.error(`[bench] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = await resolveDatabase(say);
const admin = new pg.Client({ ...connectionFields(server.url), database: "postgres" });
await admin.connect();
const dbName = `redrive_bench_replay_${process.pid}`;
await admin.query(`DROP DATABASE IF EXISTS "${dbName}"`);
await admin.query(`CREATE DATABASE "${dbName}"`);
const url = new URL(server.url);
url.pathname = `/${dbName}`;
const dbUrl = url.toString();
await applyMigrations(dbUrl);
const db = createDb(dbUrl, 6);
say(`database ${dbName} on ${url.host}`);

await db.pool.query(`INSERT INTO "user" (id, name, email, role) VALUES ('bench-a', 'A', 'a@bench.local', 'supervisor'),
  ('bench-b', 'B', 'b@bench.local', 'supervisor')`);
const users: TestUsers = {
  creator: { userId: "bench-a", email: "a@bench.local", role: "supervisor" },
  approver: { userId: "bench-b", email: "b@bench.local", role: "supervisor" },
};

function spawnWorkers(n: number): ChildProcess[] {
  return Array.from({ length: n }, () =>
    // BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the workers.
    spawn(
      process.execPath,
      [
        ...(process.env.BENCH_WORKER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
        "bin/redrive.mjs",
        "worker",
        "--concurrency",
        "2",
        "--no-maintenance",
      ],
      {
        env: { ...process.env, DATABASE_URL: dbUrl },
        stdio: ["ignore", "ignore", "pipe"],
      },
    ),
  );
}

async function waitStarted(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          c.stderr?.on("data", (b: Buffer) => {
            if (b.toString().includes("] started (")) resolve();
          });
        }),
    ),
  );
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null) return resolve();
          c.once("exit", () => resolve());
          c.kill("SIGTERM");
        }),
    ),
  );
}

async function reset(pool: pg.Pool): Promise<void> {
  await pool.query(
    "TRUNCATE dead_letter, failure_attempt, replay_batch, replay_item, ledger_entry, entity_state, worker RESTART IDENTITY CASCADE",
  );
}

async function seed(d: Db, count: number): Promise<void> {
  await bulkApproved(d.pool, { count: Math.ceil(count / 2), prefix: "afc", kind: "afc", devices: 5000 });
  await bulkApproved(d.pool, { count: Math.floor(count / 2), prefix: "geo", kind: "spatial" });
  await d.pool.query("VACUUM ANALYZE dead_letter");
}

/**
 * Creates and approves a batch over every record (not timed: a supervisor does that beforehand), then starts
 * it and resolves once it is completed, with the seconds from start to completion.
 */
async function drain(rate: number, pageSize: number): Promise<{ id: string; seconds: number }> {
  const input = CreateBatchBody.parse({ filter: {}, sink: { type: "ledger" }, ratePerSecond: rate, pageSize });
  const { id } = await createBatch(db.pool, input, users.creator, { now: new Date() });
  await applyBatchAction(db.pool, id, "approve", users.approver, { now: new Date() });
  const started = performance.now();
  await applyBatchAction(db.pool, id, "start", users.creator, { now: new Date() });
  for (;;) {
    const { rows } = await db.pool.query(`SELECT status::text AS status FROM replay_batch WHERE id = $1`, [id]);
    if (rows[0]?.status === "completed") break;
    if (rows[0]?.status !== "running") throw new Error(`batch ${id} is ${rows[0]?.status}`);
    await sleep(20);
  }
  return { id, seconds: (performance.now() - started) / 1000 };
}

const results: Record<string, unknown> = {};

// 1. Unpaced drain.
const engine: { workers: number; seconds: number; perSecond: number }[] = [];
for (const n of values.workers.split(",").filter(Boolean).map(Number)) {
  await reset(db.pool);
  await seed(db, RECORDS);
  const children = spawnWorkers(n);
  await waitStarted(children);
  const { id, seconds } = await drain(1_000_000, 500);
  await stopWorkers(children);
  const { rows } = await db.pool.query(`SELECT applied_count, total FROM replay_batch WHERE id = $1`, [id]);
  if (rows[0].applied_count !== RECORDS) throw new Error(`expected ${RECORDS} applied, got ${rows[0].applied_count}`);
  const perSecond = Math.round(RECORDS / seconds);
  engine.push({ workers: n, seconds: Number(seconds.toFixed(2)), perSecond });
  say(`engine, ${n} worker(s): ${RECORDS} records in ${seconds.toFixed(2)} s = ${perSecond}/s`);
}
results.engine = engine;

// 2. graphile-worker reference.
let bestReference: number | null = null;
if (!values["skip-graphile"]) {
  await reset(db.pool);
  const reference = await benchGraphile(dbUrl, RECORDS, say);
  results.graphileWorker = reference;
  const best = Math.max(...engine.map((e) => e.perSecond));
  const bestRef = Math.max(...reference.map((r) => r.perSecond));
  bestReference = bestRef;
  results.ratio = Number((best / bestRef).toFixed(2));
  say(`ratio engine best / graphile-worker best = ${best} / ${bestRef} = ${results.ratio}`);
}

// 3. The write floor, 2 connections (both cores), with and without the records' status.
if (!values["skip-floor"]) {
  const floor: FloorResult[] = [];
  for (const recordStatus of [true, false]) {
    await reset(db.pool);
    await seed(db, RECORDS);
    const input = CreateBatchBody.parse({ filter: {}, sink: { type: "ledger" }, ratePerSecond: 1_000_000, pageSize: 500 });
    const { id } = await createBatch(db.pool, input, users.creator, { now: new Date() });
    await applyBatchAction(db.pool, id, "approve", users.approver, { now: new Date() });
    await db.pool.query("VACUUM ANALYZE replay_item");
    const row = await benchWriteFloor(db.pool, id, RECORDS, 2, recordStatus);
    floor.push(row);
    say(
      `write floor (SQL only, ${row.lanes} connections${recordStatus ? "" : ", records' status left alone"}): ${RECORDS} items in ${row.seconds} s = ${row.perSecond}/s`,
    );
  }
  results.writeFloor = floor;
  if (bestReference !== null) {
    const top = Math.max(...floor.map((f) => f.perSecond));
    results.floorRatio = Number((top / bestReference).toFixed(2));
    say(`ratio write floor best / graphile-worker best = ${top} / ${bestReference} = ${results.floorRatio}`);
  }
}

// 4. Pacing accuracy.
if (!values["skip-pacing"]) {
  const pacing: Record<string, unknown>[] = [];
  for (const rate of [10, 100, 1000]) {
    for (const n of [1, 4]) {
      const seconds = rate === 10 ? 30 : rate === 100 ? 15 : 10;
      await reset(db.pool);
      await bulkApproved(db.pool, { count: rate * seconds, prefix: "pace", kind: "afc", devices: 100_000 });
      const children = spawnWorkers(n);
      await waitStarted(children);
      const { id } = await drain(rate, 100);
      await stopWorkers(children);
      const { rows } = await db.pool.query<{ t: number }>(
        `SELECT (extract(epoch FROM submitted_at) * 1000)::float8 AS t FROM replay_item WHERE batch_id = $1 ORDER BY submitted_at`,
        [id],
      );
      const times = rows.map((r) => r.t);
      const span = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
      const achieved = (times.length - 1) / span;
      let worst = 0;
      for (let lo = 0, hi = 0; hi < times.length; hi++) {
        while ((times[hi] as number) - (times[lo] as number) >= 1000) lo++;
        worst = Math.max(worst, hi - lo + 1);
      }
      const row = {
        rate,
        workers: n,
        records: times.length,
        achieved: Number(achieved.toFixed(2)),
        errorPct: Number((((achieved - rate) / rate) * 100).toFixed(2)),
        worstWindow: worst,
        worstWindowPct: Number((((worst - rate) / rate) * 100).toFixed(1)),
      };
      pacing.push(row);
      say(
        `pacing ${rate}/s, ${n} worker(s): achieved ${row.achieved}/s (${row.errorPct}%), worst 1-s window ${worst} (${row.worstWindowPct}%)`,
      );
    }
  }
  results.pacing = pacing;
}

console.log(JSON.stringify(results, null, 2));
await db.pool.end();
await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
await admin.end();
await server.stop();
process.exit(0);
