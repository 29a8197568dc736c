// `npm run bench:replay`: the replay engine against its references and its floors on the same PostgreSQL, in one run.
//  1. unpaced drain of 100,000 approved records (half AFC taps, half spatial features, both re-validated)
//     through the built-in ledger with 1, 2 and 4 worker processes;
//  2. graphile-worker 0.17 in its best configuration (localQueue 500, batched completion with no delay, jobs added
//     with one add_jobs call) draining 100,000 no-op jobs, and — the fair reference — one job per item whose task
//     does the ledger path's writes (scripts/bench/graphile-reference.ts);
//  3. the write floor: the writes each item needs, in one SQL statement per page and no application code
//     (scripts/bench/write-floor.ts), with all writes, then without each one in turn: what each write costs;
//  4. the HTTP sink: 20,000 records drained unpaced by 2 workers into a local receiver answering 200 at once, beside
//     a plain keep-alive client loop posting the same bodies with as many requests in flight (its floor);
//  5. pacing accuracy at 10, 100 and 1,000 records/s with 1 and 4 workers: achieved rate and worst 1-s window.
// Each drain, floor and loop prints its CPU ms per 1,000 items by process (PostgreSQL backends, workers, receiver,
// client) and the rate that CPU allows on this machine's cores: wall-clock rates move with whatever else runs, the
// CPU per item hardly does, and it shows what bounds a rate on 2 cores. Ends with the ratios and their goals (#30). Every figure line carries the load average, since the machine may
// be shared: ratios within one run are what compares.
// Uses a dedicated database on the resolved server (DATABASE_URL, else the embedded one), dropped at the end.
//   --records N (default 100000)  --http-records N (default 20000)  --workers 1,2,4 (--workers "" skips the drains)
//   --skip-graphile  --skip-fair  --skip-floor  --skip-http  --skip-pacing
//   --sql-timing: the engine's workers time every statement they send (scripts/bench/sql-timing.mjs); each drain
//     then prints the statements' wall time per item (summed over the workers' connections)
import { spawn, type ChildProcess } from "node:child_process";
import { UNSCOPED } from "../lib/scope/record-scope";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
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
import { requestBody } from "../lib/replay/sinks/http/http-sink";
import { benchGraphile, benchGraphileFair } from "./bench/graphile-reference";
import { clientLoop, startOkServer } from "./bench/http-floor";
import { benchWriteFloor, FLOOR_VARIANTS, type FloorResult } from "./bench/write-floor";
import { BackendMeter, processCpu } from "./bench/cpu";

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "100000" },
    "http-records": { type: "string", default: "20000" },
    workers: { type: "string", default: "1,2,4" },
    "skip-graphile": { type: "boolean", default: false },
    "skip-fair": { type: "boolean", default: false },
    "skip-http": { type: "boolean", default: false },
    "sql-timing": { type: "boolean", default: false },
    "skip-floor": { type: "boolean", default: false },
    "skip-pacing": { type: "boolean", default: false },
  },
});
const RECORDS = Number(values.records);
const HTTP_RECORDS = Number(values["http-records"]);
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const say = (m: string) => console.error(`[bench] ${m}  (load ${loadavg()})`);
// The HTTP sink's receiver listens on loopback, which the outbound rule refuses unless an operator allows it.
process.env.REDRIVE_OUTBOUND_ALLOW_PRIVATE = "127.0.0.1";
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
  creator: { scope: UNSCOPED, userId: "bench-a", email: "a@bench.local", role: "supervisor" },
  approver: { scope: UNSCOPED, userId: "bench-b", email: "b@bench.local", role: "supervisor" },
};

let timingDir: string | null = null;

/** `timed`: with --sql-timing, these workers time their statements (read back by statementCosts). */
function spawnWorkers(n: number, timed = false): ChildProcess[] {
  if (timed && values["sql-timing"]) timingDir = mkdtempSync(join(tmpdir(), "redrive-sql-timing-"));
  const timing = timingDir ? ["--import", "./scripts/bench/sql-timing.mjs"] : [];
  return Array.from({ length: n }, () =>
    // BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the workers.
    spawn(
      process.execPath,
      [
        ...(process.env.BENCH_WORKER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
        ...timing,
        "bin/redrive.mjs",
        "worker",
        "--concurrency",
        "2",
        "--no-maintenance",
      ],
      {
        env: { ...process.env, DATABASE_URL: dbUrl, ...(timingDir ? { BENCH_SQL_TIMING_DIR: timingDir } : {}) },
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

/** The statements the last workers sent (--sql-timing), slowest first: wall µs per item, summed over workers. */
function statementCosts(items: number): { statement: string; calls: number; usPerItem: number }[] {
  if (!timingDir) return [];
  const sum = new Map<string, { calls: number; ms: number }>();
  for (const f of readdirSync(timingDir)) {
    const part = JSON.parse(readFileSync(join(timingDir, f), "utf8")) as Record<string, { calls: number; ms: number }>;
    for (const [k, v] of Object.entries(part)) {
      const t = sum.get(k) ?? { calls: 0, ms: 0 };
      sum.set(k, { calls: t.calls + v.calls, ms: t.ms + v.ms });
    }
  }
  rmSync(timingDir, { recursive: true, force: true });
  timingDir = null;
  return [...sum.entries()]
    .map(([statement, t]) => ({ statement, calls: t.calls, usPerItem: Number(((t.ms * 1000) / items).toFixed(1)) }))
    .filter((r) => r.usPerItem >= 0.5)
    .sort((a, b) => b.usPerItem - a.usPerItem);
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
async function drain(rate: number, pageSize: number, sink: unknown = { type: "ledger" }): Promise<{ id: string; seconds: number }> {
  const input = CreateBatchBody.parse({ filter: {}, sink, ratePerSecond: rate, pageSize });
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

/** CPU seconds the given processes have used so far (processes /proc cannot read count 0). */
function cpuOf(pids: (number | undefined)[]): number {
  return pids.reduce<number>((sum, pid) => sum + (pid === undefined ? 0 : (processCpu(pid) ?? 0)), 0);
}

interface CpuCost {
  /** CPU ms per 1,000 items, per part and in all */
  msPer1000: Record<string, number>;
  /** the rate these CPU costs allow on this machine's cores, were nothing else running */
  cpuBoundPerSecond: number;
}

/** CPU ms per 1,000 items from CPU seconds per part; null parts (no /proc) are left out. */
function cpuCost(items: number, parts: Record<string, number | null>): CpuCost {
  const msPer1000: Record<string, number> = {};
  let total = 0;
  for (const [k, sec] of Object.entries(parts)) {
    if (sec === null) continue;
    msPer1000[k] = Number(((sec * 1e6) / items).toFixed(1));
    total += sec;
  }
  msPer1000.total = Number(((total * 1e6) / items).toFixed(1));
  return { msPer1000, cpuBoundPerSecond: total > 0 ? Math.round((items / total) * availableParallelism()) : 0 };
}

const describeCpu = (c: CpuCost) =>
  `CPU ms per 1,000 items: ${Object.entries(c.msPer1000)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")} (all ${availableParallelism()} cores busy with this alone: ${c.cpuBoundPerSecond}/s)`;

const results: Record<string, unknown> = {};

// 1. Unpaced drain.
const engine: { workers: number; seconds: number; perSecond: number; cpu: CpuCost; statements?: ReturnType<typeof statementCosts> }[] = [];
for (const n of values.workers.split(",").filter(Boolean).map(Number)) {
  await reset(db.pool);
  await seed(db, RECORDS);
  const children = spawnWorkers(n, true);
  await waitStarted(children);
  const pgMeter = new BackendMeter(dbName).start();
  const workers0 = cpuOf(children.map((c) => c.pid));
  const { id, seconds } = await drain(1_000_000, 500);
  const cpu = cpuCost(RECORDS, { postgres: pgMeter.stop()?.seconds ?? null, workers: cpuOf(children.map((c) => c.pid)) - workers0 });
  await stopWorkers(children);
  const { rows } = await db.pool.query(`SELECT applied_count, total FROM replay_batch WHERE id = $1`, [id]);
  if (rows[0].applied_count !== RECORDS) throw new Error(`expected ${RECORDS} applied, got ${rows[0].applied_count}`);
  const perSecond = Math.round(RECORDS / seconds);
  const statements = statementCosts(RECORDS);
  engine.push({ workers: n, seconds: Number(seconds.toFixed(2)), perSecond, cpu, ...(statements.length ? { statements } : {}) });
  say(`engine, ${n} worker(s): ${RECORDS} records in ${seconds.toFixed(2)} s = ${perSecond}/s`);
  say(`  ${describeCpu(cpu)}`);
  for (const st of statements) say(`  ${String(st.usPerItem).padStart(7)} µs/item  ${String(st.calls).padStart(6)} calls  ${st.statement}`);
}
results.engine = engine;

/** A fresh set of RECORDS approved records in one approved batch that no worker runs; its id. */
async function approvedBatch(): Promise<string> {
  await reset(db.pool);
  await seed(db, RECORDS);
  const input = CreateBatchBody.parse({ filter: {}, sink: { type: "ledger" }, ratePerSecond: 1_000_000, pageSize: 500 });
  const { id } = await createBatch(db.pool, input, users.creator, { now: new Date() });
  await applyBatchAction(db.pool, id, "approve", users.approver, { now: new Date() });
  await db.pool.query("VACUUM ANALYZE replay_item");
  return id;
}

// 2. graphile-worker: no-op jobs (as in #7), then the fair reference doing the ledger path's writes.
if (!values["skip-graphile"]) {
  await reset(db.pool);
  results.graphileWorker = await benchGraphile(dbUrl, RECORDS, say);
}
if (!values["skip-fair"]) {
  results.graphileWorkerFair = await benchGraphileFair(dbUrl, await approvedBatch(), RECORDS, say, approvedBatch);
}

// 3. The write floor, 2 connections (both cores): all writes, then each write left out in turn.
if (!values["skip-floor"]) {
  const floor: (FloorResult & { cpu: CpuCost })[] = [];
  for (const without of FLOOR_VARIANTS) {
    const batch = await approvedBatch();
    const pgMeter = new BackendMeter(dbName).start();
    const row = await benchWriteFloor(db.pool, batch, RECORDS, 2, without);
    const cpu = cpuCost(RECORDS, { postgres: pgMeter.stop()?.seconds ?? null });
    floor.push({ ...row, cpu });
    say(
      `write floor (SQL only, ${row.lanes} connections${without ? `, without the ${without} write` : ""}): ${RECORDS} items in ${row.seconds} s = ${row.perSecond}/s; ${describeCpu(cpu)}`,
    );
  }
  results.writeFloor = floor;
  const all = floor.find((f) => f.without === null) as FloorResult & { cpu: CpuCost };
  // Time per item on 2 connections (so CPU µs ≈ 2× these): the floor's, and what each write adds to it.
  const us = (rate: number) => 1e6 / rate;
  results.writeCostUsPerItem = Object.fromEntries([
    ["all", Number(us(all.perSecond).toFixed(1))],
    ...floor.filter((f) => f.without).map((f) => [f.without, Number((us(all.perSecond) - us(f.perSecond)).toFixed(1))]),
  ]);
  say(`write floor, wall µs per item (2 connections): ${JSON.stringify(results.writeCostUsPerItem)}`);
}

// 4. The HTTP sink against a plain client loop, same receiver, same bodies, same requests in flight.
if (!values["skip-http"]) {
  const WORKERS = 2;
  const LANES = 2; // spawnWorkers' --concurrency
  const SINK_CONCURRENCY = 4;
  const inFlight = WORKERS * LANES * SINK_CONCURRENCY;
  const receiver = await startOkServer();
  try {
    await reset(db.pool);
    await seed(db, HTTP_RECORDS);
    const children = spawnWorkers(WORKERS, true);
    await waitStarted(children);
    const sink = { type: "http", url: receiver.url, concurrency: SINK_CONCURRENCY };
    const pgMeter = new BackendMeter(dbName).start();
    const before = { workers: cpuOf(children.map((c) => c.pid)), receiver: cpuOf([receiver.pid]) };
    const { id, seconds } = await drain(1_000_000, 500, sink);
    const engineCpu = cpuCost(HTTP_RECORDS, {
      postgres: pgMeter.stop()?.seconds ?? null,
      workers: cpuOf(children.map((c) => c.pid)) - before.workers,
      receiver: cpuOf([receiver.pid]) - before.receiver,
    });
    await stopWorkers(children);
    const { rows } = await db.pool.query(`SELECT applied_count FROM replay_batch WHERE id = $1`, [id]);
    if (rows[0].applied_count !== HTTP_RECORDS)
      throw new Error(`HTTP sink: expected ${HTTP_RECORDS} applied, got ${rows[0].applied_count}`);
    const engineHttp = {
      workers: WORKERS,
      inFlight,
      seconds: Number(seconds.toFixed(2)),
      perSecond: Math.round(HTTP_RECORDS / seconds),
      cpu: engineCpu,
    };
    say(
      `engine → HTTP sink, ${WORKERS} workers, ${inFlight} in flight: ${HTTP_RECORDS} records in ${engineHttp.seconds} s = ${engineHttp.perSecond}/s`,
    );
    say(`  ${describeCpu(engineCpu)}`);
    for (const st of statementCosts(HTTP_RECORDS))
      say(`  ${String(st.usPerItem).padStart(7)} µs/item  ${String(st.calls).padStart(6)} calls  ${st.statement}`);

    const { rows: records } = await db.pool.query<{
      kind: "afc" | "spatial";
      key: string;
      entity: string | null;
      observed: string;
      payload: never;
    }>(
      `SELECT kind::text AS kind, idempotency_key AS key, entity_key AS entity, payload,
         to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS observed
       FROM dead_letter ORDER BY id`,
    );
    const bodies = records.map((r) => ({
      key: r.key,
      body: requestBody({
        itemId: "0",
        batchId: "0",
        deadLetterId: "0",
        kind: r.kind,
        idempotencyKey: r.key,
        entityKey: r.entity,
        observedAt: r.observed,
        payload: r.payload,
      }),
    }));
    const loops = [];
    for (const client of ["undici.request", "fetch"] as const) {
      const own = process.cpuUsage();
      const receiver0 = cpuOf([receiver.pid]);
      const loop = await clientLoop(receiver.url, bodies, inFlight, client);
      const used = process.cpuUsage(own);
      const cpu = cpuCost(bodies.length, { client: (used.user + used.system) / 1e6, receiver: cpuOf([receiver.pid]) - receiver0 });
      loops.push({ ...loop, cpu });
      say(
        `client loop (${client}, keep-alive, ${inFlight} in flight): ${bodies.length} posts in ${loop.seconds} s = ${loop.perSecond}/s; ${describeCpu(cpu)}`,
      );
    }
    results.http = { engine: engineHttp, loops };
  } finally {
    await receiver.stop();
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

// The ratios #30 asks for, from this run's figures.
{
  type Rate = { perSecond: number };
  const best = (xs: unknown) => (Array.isArray(xs) && xs.length > 0 ? Math.max(...(xs as Rate[]).map((x) => x.perSecond)) : null);
  const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? Number((a / b).toFixed(2)) : null);
  const engineBest = best(engine);
  const floorAll = (results.writeFloor as FloorResult[] | undefined)?.find((f) => f.without === null)?.perSecond;
  const http = results.http as { engine: Rate; loops: (Rate & { client: string })[] } | undefined;
  const ratios: Record<string, { value: number | null; goal?: string }> = {
    "engine best / graphile-worker no-op best": { value: ratio(engineBest, best(results.graphileWorker)) },
    "engine best / graphile-worker fair best": { value: ratio(engineBest, best(results.graphileWorkerFair)), goal: "≥ 2" },
    "graphile-worker fair best / write floor": { value: ratio(best(results.graphileWorkerFair), floorAll) },
  };
  for (const e of engine)
    ratios[`engine ${e.workers} worker(s) / write floor`] = {
      value: ratio(e.perSecond, floorAll),
      goal: e.workers <= 2 ? "≥ 0.7" : undefined,
    };
  if (http) {
    for (const l of http.loops)
      ratios[`engine HTTP sink / ${l.client} loop`] = {
        value: ratio(http.engine.perSecond, l.perSecond),
        goal: l.client === "undici.request" ? "≥ 0.8" : undefined,
      };
  }
  results.ratios = ratios;
  for (const [name, r] of Object.entries(ratios)) {
    if (r.value === null) continue;
    const verdict = r.goal ? ` (goal ${r.goal}: ${r.value >= Number(r.goal.slice(2)) ? "met" : "NOT met"})` : "";
    say(`ratio ${name} = ${r.value}${verdict}`);
  }
}

results.loadavg = loadavg();
console.log(JSON.stringify(results, null, 2));
await db.pool.end();
await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
await admin.end();
await server.stop();
process.exit(0);
