// `npm run bench:rules [-- --count 1000000 --db redrive_bench --reseed --geos-records 20000 --geos-all --runs 3 --skip-stored]`
// Triage rules' dry runs on a database of 1M synthetic dead letters (bench:list's, seeded by
// scripts/bench/seed-bulk.ts once and reused; a seed cut off goes on where it stopped):
//  - a rule that reads the stored analysis, dry-run over every record (goal: within 10 s);
//  - a rule judging another repair method, which runs GEOS for each record it looks at on the ingest threads
//    (goal: GEOS speed on every core): its rate beside GEOS's own on one core, here, and the CPU each record costs
//    (every thread of this process: on a shared machine the ingest threads, at a lower priority, get what is left).
// Every figure line carries the load average: the machine may be shared.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { STANDING_REPLAY } from "../lib/replay/batch/standing-rules";
import { parseArgs } from "node:util";
import pg from "pg";
import { createUser } from "../lib/auth/users";
import { withSessionSetup } from "../lib/db/session";
import { connectionFields } from "../lib/db/pg-adapter";
import { applyMigrations } from "../lib/db/migrate";
import { resolveDatabase } from "../lib/db/resolve";
import { sharedNormalizePool } from "../lib/dead-letters/ingest/normalize-pool";
import { otherRepairOf } from "../lib/dead-letters/ingest/rule-facts";
import { createRuleJob, runRuleJob } from "../lib/dead-letters/rules/rule-jobs";
import { createRule, type RuleContext } from "../lib/rules/rules";
import type { RuleAction, RuleJobView, RuleMatch } from "../lib/rules/rule-schemas";
import { UNSCOPED } from "../lib/scope/record-scope";
import { analyzeGeometry } from "../lib/spatial/analyze";
import { getGeos } from "../lib/spatial/geos";
import { BackendMeter } from "./bench/cpu";
import { seedBulk } from "./bench/seed-bulk";

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "1000000" },
    db: { type: "string", default: "redrive_bench" },
    reseed: { type: "boolean", default: false },
    /** about how many records the GEOS rule looks at (a source and reason group of about that size is chosen) */
    "geos-records": { type: "string", default: "20000" },
    /** dry runs of the GEOS rule, one after another (the first one's threads start GEOS cold) */
    runs: { type: "string", default: "3" },
    /** the GEOS rule over every pending spatial record instead (a run of ~15 s at 1M: steadier figures) */
    "geos-all": { type: "boolean", default: false },
    /** leave out the stored-analysis dry run (when only the GEOS rule is measured) */
    "skip-stored": { type: "boolean", default: false },
  },
});
const COUNT = Number(args.count);
const GEOS_RECORDS = Number(args["geos-records"]);
const RUNS = Number(args.runs);
if (!Number.isInteger(COUNT) || COUNT < 1) fail(`--count: must be a whole number of records, not ${args.count}`);
if (!Number.isInteger(GEOS_RECORDS) || GEOS_RECORDS < 1) fail(`--geos-records: must be a whole number, not ${args["geos-records"]}`);
if (!Number.isInteger(RUNS) || RUNS < 1) fail(`--runs: must be a whole number, not ${args.runs}`);

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const load = () => `load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`;
const fmt = (n: number) => Math.round(n).toLocaleString("en");
const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
const say = (m: string) => console.log(`[bench:rules] ${m}`);

const handle = await resolveDatabase();
const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
await admin.connect();
const url = new URL(handle.url);
url.pathname = `/${args.db}`;
if (args.reseed) await admin.query(`DROP DATABASE IF EXISTS "${args.db}" WITH (FORCE)`);
if ((await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [args.db])).rowCount !== 1) {
  await admin.query(`CREATE DATABASE "${args.db}"`);
}
await admin.end();
await applyMigrations(url.toString());
process.env.DATABASE_URL = url.toString();
const pool = new pg.Pool(withSessionSetup({ connectionString: url.toString(), max: 4 }));
{
  const client = await pool.connect();
  const seeded = await seedBulk(client, COUNT, say);
  client.release();
  if (seeded > 0) {
    say("VACUUM ANALYZE");
    await pool.query("VACUUM ANALYZE dead_letter");
  }
}

// A rule is dry-run as a draft: no second supervisor needed, and nothing is left deciding arrivals in the database.
const stamp = Date.now().toString(36);
const now = new Date();
const { user } = await createUser(
  pool,
  { email: `bench-rules-${stamp}@local`, role: "supervisor", password: "bench-rules-supervisor" },
  { actor: { id: null, email: "bench", role: "system" }, now },
);
const ctx: RuleContext = {
  actor: { id: user.id, email: user.email, role: "supervisor" },
  role: "supervisor",
  scope: UNSCOPED,
  requestId: "bench",
  now,
  standing: STANDING_REPLAY,
};

async function dryRun(name: string, match: RuleMatch, action: RuleAction): Promise<{ job: RuleJobView; seconds: number }> {
  const rule = await createRule(pool, { name: `bench-${name}-${stamp}`, match, action }, ctx);
  const created = await createRuleJob(pool, rule.id, { type: "dry_run", match, action, version: 1 }, { ...ctx, now: new Date() });
  const t0 = performance.now();
  const job = await runRuleJob(pool, rule.id, created.id, { now: () => new Date() });
  const seconds = (performance.now() - t0) / 1000;
  if (job.status !== "completed") throw new Error(`the dry run ${job.status}: ${job.error}`);
  return { job, seconds };
}

const total = Number((await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM dead_letter")).rows[0]!.n);
console.log(`bench:rules — ${fmt(total)} records in ${args.db} (${load()})`);

// 1. The stored analysis: every pending spatial record of every source.
if (!args["skip-stored"]) {
  const match: RuleMatch = { kind: "spatial", repair: { sameType: true, maxAreaChange: 0.05, maxDroppedParts: 0 } };
  const { job, seconds } = await dryRun("stored", match, { type: "approve" });
  const top = Object.entries(job.skippedReasons)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([r, n]) => `${fmt(n)} "${r}"`)
    .join(", ");
  console.log(
    `  stored analysis  ${JSON.stringify(match)}: ${fmt(job.processed)} records looked at (${fmt(total)} stored) in ${seconds.toFixed(1)} s → ${fmt(total / seconds)} records/s; decided ${fmt(job.decided)}, skipped ${fmt(job.skipped)} (${top}) — goal ≤ 10 s: ${seconds <= 10 ? "met" : "NOT met"} (${load()})`,
  );
}

// 2. Another repair method: GEOS for each record looked at, on the ingest threads.
{
  const threads = sharedNormalizePool();
  await threads?.warmed();
  const { rows: groups } = await pool.query<{ source: string; reason: string; n: number }>(
    `SELECT source, reason_group AS reason, count(*)::int AS n FROM dead_letter
     WHERE status = 'pending' AND kind = 'spatial' AND failure_class <> 'poison' GROUP BY 1, 2`,
  );
  const group = groups.sort((a, b) => Math.abs(a.n - GEOS_RECORDS) - Math.abs(b.n - GEOS_RECORDS))[0];
  if (!group) fail("no pending spatial records to judge: seed first");
  // The geometries as the dry run reads them: parsed (for GEOS alone), and as text (what the threads are sent).
  const { rows: sample } = await pool.query<{ g: unknown; t: string }>(
    `SELECT payload->'geometry' AS g, COALESCE((payload->'geometry')::text, 'null') AS t FROM dead_letter
     WHERE status = 'pending' AND kind = 'spatial' AND jsonb_typeof(payload) = 'object'
       AND ($3 OR (source = $1 AND reason_group = $2)) ORDER BY id LIMIT ${args["geos-all"] ? 20_000 : 2000}`,
    [group.source, group.reason, args["geos-all"]],
  );
  const geos = await getGeos();
  const repair = { method: "structure", policy: "accept" } as const;
  // What a dry run asks of GEOS: the analysis, not the repaired geometry built as GeoJSON (an apply's digest needs it).
  const analysisOnly = { ...repair, deliver: false };
  // Once untimed: the first calls compile and tier up GEOS's wasm on this thread.
  for (const { g, t } of sample) {
    analyzeGeometry(geos, g, analysisOnly);
    otherRepairOf(JSON.parse(t), repair, geos, { digest: false });
  }
  const criteria = { method: "structure", maxAreaChange: 0.05 } as const;
  const match: RuleMatch = args["geos-all"]
    ? { kind: "spatial", repair: criteria }
    : { source: group.source, reason: group.reason, repair: criteria };
  const runs: { rate: number; oneCore: number; bothThreads: number; geosUs: number; jobUs: number; pgUs: number | null }[] = [];
  // Each run measures one core's speed just before its dry run: on a shared machine the load moves between runs.
  for (let run = 1; run <= RUNS; run++) {
    // GEOS alone on this thread, on the same geometries (parsed already): one core's speed.
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (const { g } of sample) analyzeGeometry(geos, g, analysisOnly);
    const oneCore = sample.length / ((performance.now() - t0) / 1000);
    const geosCpu = cpuSeconds(process.cpuUsage(c0)) / sample.length;
    // A thread's whole work per record of a dry run, on this thread: the payload's text parsed, GEOS, the rule's facts.
    const t1 = performance.now();
    for (const { t } of sample) otherRepairOf(JSON.parse(t), repair, geos, { digest: false });
    const threadWork = sample.length / ((performance.now() - t1) / 1000);
    // The threads on their own, no job: the same payloads handed to them straight, as fast as they take them —
    // what this machine's cores give GEOS now (on a shared machine, less than twice one core's figure).
    let bothThreads = 0;
    let oneThread = 0;
    if (threads) {
      // One ingest thread at a time (a chunk each, awaited): one core at the threads' lower priority, beside the
      // main thread's figure above — on a loaded machine the difference is what the others take from them.
      const t3 = performance.now();
      for (let i = 0; i < sample.length; i += 100) {
        await threads.ruleRepairs(
          sample.slice(i, i + 100).map((r) => r.t),
          repair,
          { digest: false },
        );
      }
      oneThread = sample.length / ((performance.now() - t3) / 1000);
      const geometries = [...sample, ...sample].map((r) => r.t);
      const t2 = performance.now();
      await threads.ruleRepairs(geometries, repair, { digest: false });
      bothThreads = geometries.length / ((performance.now() - t2) / 1000);
    }
    const c1 = process.cpuUsage();
    const busy0 = threads?.ruleBusyMs ?? 0;
    const elu0 = performance.eventLoopUtilization();
    const backends = new BackendMeter(args.db).start();
    const { job, seconds } = await dryRun(`geos${run}`, match, { type: "approve" });
    const jobCpu = cpuSeconds(process.cpuUsage(c1)) / job.processed;
    const pgCpu = backends.stop();
    const pgUs = pgCpu ? (pgCpu.seconds / job.processed) * 1e6 : null;
    const rate = job.processed / seconds;
    // How much of the run the threads had work (their wall clock on it: on a shared core also their waits for
    // it), and how busy this thread was (reading pages, handing them over, saving progress).
    const threadsBusy = threads ? ((threads.ruleBusyMs - busy0) / (seconds * 1000 * threads.size)) * 100 : 0;
    const mainBusy = performance.eventLoopUtilization(elu0).utilization * 100;
    console.log(
      `  other method #${run}${run === 1 ? " (threads' first GEOS)" : ""}: structure repair of ${fmt(job.processed)} records (${args["geos-all"] ? "every pending spatial record" : `${group.source}, "${group.reason.slice(0, 40)}…"`}) in ${seconds.toFixed(1)} s → ${fmt(rate)} records/s on ${threads?.size ?? 0} ingest thread(s); GEOS alone on one core: ${fmt(oneCore)} records/s (×${(rate / oneCore).toFixed(2)}), a thread's work per record (parse, GEOS, facts) on one core: ${fmt(threadWork)} records/s (×${(rate / threadWork).toFixed(2)}); one ingest thread alone: ${fmt(oneThread)} records/s (the dry run ×${(rate / oneThread).toFixed(2)}); both threads alone, fed with no job: ${fmt(bothThreads)} records/s (×${(bothThreads / oneThread).toFixed(2)} one thread; the dry run ×${(rate / bothThreads).toFixed(2)} of it); CPU per record (this process, every thread): the dry run ${fmt(jobCpu * 1e6)} µs, GEOS alone ${fmt(geosCpu * 1e6)} µs; PostgreSQL's: ${pgUs === null ? "n/a" : `${fmt(pgUs)} µs`}; threads at work ${fmt(threadsBusy)}% of the run, main thread busy ${fmt(mainBusy)}% (${load()})`,
    );
    runs.push({ rate, oneCore, bothThreads, geosUs: geosCpu * 1e6, jobUs: jobCpu * 1e6, pgUs });
  }
  // The runs after the first (whose threads start GEOS cold), their medians: the figures move with the load.
  const warm = runs.length > 1 ? runs.slice(1) : runs;
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const rate = median(warm.map((r) => r.rate));
  const oneCore = median(warm.map((r) => r.oneCore));
  const both = median(warm.map((r) => r.bothThreads));
  const geosUs = median(warm.map((r) => r.geosUs));
  const pgs = warm.flatMap((r) => (r.pgUs === null ? [] : [r.pgUs]));
  // Every record's GEOS and PostgreSQL's reading of it share this machine's cores: even with nothing else spent on
  // it, a dry run could go no faster than the cores over their sum.
  const cores = availableParallelism();
  const bound = pgs.length ? cores / ((geosUs + median(pgs)) / 1e6) : null;
  console.log(
    `  other method, median of ${warm.length} run(s): ${fmt(rate)} records/s; GEOS alone on one core ${fmt(oneCore)} records/s (×${(rate / oneCore).toFixed(2)}); both threads alone, fed with no job ${fmt(both)} records/s (×${(rate / both).toFixed(2)}); CPU per record: GEOS alone ${fmt(geosUs)} µs, the dry run ${fmt(median(warm.map((r) => r.jobUs)))} µs in this process${pgs.length ? ` + ${fmt(median(pgs))} µs in PostgreSQL; ${cores} cores ÷ (GEOS + PostgreSQL's reading) = ${fmt(bound!)} records/s at most on this machine (the dry run ×${(rate / bound!).toFixed(2)} of it)` : ""} (${load()})`,
  );
}

await pool.end();
await handle.stop();
process.exit(0);
