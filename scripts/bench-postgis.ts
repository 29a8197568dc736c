// `npm run bench:postgis`: the unpaced rate of a replay into a PostGIS table, on this machine.
//  1. the engine: approved spatial records drained at 1,000,000/s through the PostGIS sink by 1 and 2 worker
//     processes (pages of 500), from start to completion, every feature checked in the table afterwards;
//  2. the sink's statement alone: the same features written page by page through postgisSink with no engine
//     (claims, outcomes, audit) around it — what the target itself takes;
//  3. a second replay of the same keys: every page answered `deduped` by the key table;
//  4. with --compare-ledger, the same drain into the built-in ledger, for scale.
// Uses a dedicated database on the resolved server (DATABASE_URL, else the embedded one) and a target database on
// the first server offering PostGIS (that one, else the machine's PostgreSQL 15), both dropped at the end. Figures go to stdout as JSON, progress to stderr.
//   --records N (default 20000)  --workers 1,2  --page-size 500  --compare-ledger
import { spawn, type ChildProcess } from "node:child_process";
import { UNSCOPED } from "../lib/scope/record-scope";
import { parseArgs } from "node:util";
import pg from "pg";

// The worker processes unseal the sink's URL with the key this process sealed it with.
process.env.REDRIVE_SECRET_KEY ??= `bench-postgis-${"k".repeat(32)}`;
// The target database is on this machine, which the outbound rule refuses unless allowed (lib/net/outbound-guard.ts);
// the workers inherit the setting.
process.env.REDRIVE_OUTBOUND_ALLOW_PRIVATE ??= "127.0.0.1,::1";

const { createDb } = await import("../lib/db/client");
const { applyMigrations } = await import("../lib/db/migrate");
const { connectionFields } = await import("../lib/db/pg-adapter");
const { resolveDatabase } = await import("../lib/db/resolve");
const { createBatch } = await import("../lib/replay/batch/create-batch");
const { applyBatchAction } = await import("../lib/replay/batch/apply-batch-action");
const { CreateBatchBody } = await import("../lib/replay/batch/batch-schemas");
const { PostgisSinkSchema } = await import("../lib/replay/sinks/postgis/postgis-sink-schema");
const { storedPostgisSink } = await import("../lib/replay/sinks/postgis/check-postgis-target");
const { postgisSink } = await import("../lib/replay/sinks/postgis/postgis-sink");
const { closeTargetPools } = await import("../lib/replay/sinks/postgis/target-pools");
const { bulkApproved } = await import("../tests/replay/fixtures");
const { createPostgisDatabase, findPostgisServer } = await import("../tests/support/postgis-server");

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "20000" },
    workers: { type: "string", default: "1,2" },
    "page-size": { type: "string", default: "500" },
    "compare-ledger": { type: "boolean", default: false },
  },
});
const RECORDS = Number(values.records);
const PAGE = Number(values["page-size"]);
const say = (m: string) => console.error(`[bench] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = await resolveDatabase(say);
const admin = new pg.Client({ ...connectionFields(server.url), database: "postgres" });
await admin.connect();
const dbName = `redrive_bench_postgis_${process.pid}`;
const gisName = `redrive_bench_postgis_target_${process.pid}`;
await admin.query(`DROP DATABASE IF EXISTS "${dbName}"`);
await admin.query(`CREATE DATABASE "${dbName}"`);
const dbUrlObject = new URL(server.url);
dbUrlObject.pathname = `/${dbName}`;
const dbUrl = dbUrlObject.toString();
await applyMigrations(dbUrl);
const db = createDb(dbUrl, 6);
// The target on the same server when it offers PostGIS, else on the machine's PostgreSQL 15 (REDRIVE_TEST_POSTGIS_URL to choose).
const found = await findPostgisServer(server.url);
if ("reason" in found) throw new Error(found.reason);
const target = await createPostgisDatabase(found.url, gisName);
const gisUrl = target.url;
const gis = target.pool;
const version = (await gis.query<{ v: string }>("SELECT postgis_full_version() AS v")).rows[0]?.v ?? "?";
say(`Redrive database ${dbName} on ${new URL(server.url).host}, PostGIS target ${gisName} on ${new URL(found.url).host}`);

await db.pool.query(`INSERT INTO "user" (id, name, email, role) VALUES ('bench-a', 'A', 'a@bench.local', 'supervisor'),
  ('bench-b', 'B', 'b@bench.local', 'supervisor')`);
const creator = { scope: UNSCOPED, userId: "bench-a", email: "a@bench.local", role: "supervisor" as const };
const approver = { scope: UNSCOPED, userId: "bench-b", email: "b@bench.local", role: "supervisor" as const };
const sinkConfig = {
  type: "postgis" as const,
  url: gisUrl,
  table: "gis.features",
  idColumn: "id",
  geometryColumn: "geom",
  observedAtColumn: "observed_at",
  propertiesColumn: "props",
};

async function resetTarget(): Promise<void> {
  await gis.query("DROP SCHEMA IF EXISTS gis CASCADE");
  await gis.query("CREATE SCHEMA gis");
  await gis.query(
    "CREATE TABLE gis.features (id text PRIMARY KEY, geom geometry(Geometry, 4326) NOT NULL, observed_at timestamptz NOT NULL, props jsonb)",
  );
}

async function resetRedrive(): Promise<void> {
  await db.pool.query(
    "TRUNCATE dead_letter, failure_attempt, replay_batch, replay_item, ledger_entry, entity_state, worker RESTART IDENTITY CASCADE",
  );
  await bulkApproved(db.pool, { count: RECORDS, prefix: "geo", kind: "spatial" });
  await db.pool.query("VACUUM ANALYZE dead_letter");
}

function spawnWorkers(n: number): ChildProcess[] {
  return Array.from({ length: n }, () =>
    spawn(process.execPath, ["bin/redrive.mjs", "worker", "--concurrency", "2", "--no-maintenance", "--no-pull"], {
      env: { ...process.env, DATABASE_URL: dbUrl },
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
}

async function waitStarted(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) => new Promise<void>((resolve) => c.stderr?.on("data", (b: Buffer) => b.toString().includes("] started (") && resolve())),
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

async function drain(sink: unknown = sinkConfig): Promise<{ id: string; seconds: number }> {
  const input = CreateBatchBody.parse({ filter: {}, sink, ratePerSecond: 1_000_000, pageSize: PAGE });
  const { id } = await createBatch(db.pool, input, creator, { now: new Date() });
  await applyBatchAction(db.pool, id, "approve", approver, { now: new Date() });
  const started = performance.now();
  await applyBatchAction(db.pool, id, "start", creator, { now: new Date() });
  for (;;) {
    const { rows } = await db.pool.query(`SELECT status::text AS status, status_reason FROM replay_batch WHERE id = $1`, [id]);
    if (rows[0]?.status === "completed") break;
    if (rows[0]?.status !== "running") throw new Error(`batch ${id} is ${rows[0]?.status}: ${rows[0]?.status_reason}`);
    await sleep(20);
  }
  return { id, seconds: (performance.now() - started) / 1000 };
}

const results: Record<string, unknown> = { records: RECORDS, pageSize: PAGE, postgis: version };

// 1. The engine, unpaced.
const engine: { workers: number; seconds: number; perSecond: number }[] = [];
for (const n of values.workers.split(",").filter(Boolean).map(Number)) {
  await resetTarget();
  await resetRedrive();
  const children = spawnWorkers(n);
  await waitStarted(children);
  const { id, seconds } = await drain();
  await stopWorkers(children);
  const { rows } = await db.pool.query(`SELECT applied_count FROM replay_batch WHERE id = $1`, [id]);
  const table = await gis.query<{ n: number; valid: number; keys: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE ST_IsValid(geom))::int AS valid,
       (SELECT count(*)::int FROM gis.redrive_applied_key) AS keys FROM gis.features`,
  );
  const t = table.rows[0];
  if (rows[0].applied_count !== RECORDS || t?.n !== RECORDS || t.valid !== RECORDS || t.keys !== RECORDS) {
    throw new Error(`expected ${RECORDS} applied, rows, valid rows and keys; got ${rows[0].applied_count}, ${JSON.stringify(t)}`);
  }
  const perSecond = Math.round(RECORDS / seconds);
  engine.push({ workers: n, seconds: Number(seconds.toFixed(2)), perSecond });
  say(`engine → PostGIS, ${n} worker(s): ${RECORDS} features in ${seconds.toFixed(2)} s = ${perSecond}/s`);
}
results.engine = engine;

if (values["compare-ledger"]) {
  const ledger: { workers: number; seconds: number; perSecond: number }[] = [];
  for (const n of values.workers.split(",").filter(Boolean).map(Number)) {
    await resetRedrive();
    const children = spawnWorkers(n);
    await waitStarted(children);
    const { seconds } = await drain({ type: "ledger" });
    await stopWorkers(children);
    const perSecond = Math.round(RECORDS / seconds);
    ledger.push({ workers: n, seconds: Number(seconds.toFixed(2)), perSecond });
    say(`engine → built-in ledger, ${n} worker(s): ${RECORDS} features in ${seconds.toFixed(2)} s = ${perSecond}/s`);
  }
  results.ledgerForScale = ledger;
}

// 2 and 3. The sink's statement alone, then the same keys again (all deduped).
const { rows: payloads } = await db.pool.query<{ key: string; entity: string; observed: string; payload: unknown }>(
  `SELECT idempotency_key AS key, entity_key AS entity, to_char(observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS observed,
     payload FROM dead_letter ORDER BY observed_at, id`,
);
const sink = postgisSink(storedPostgisSink(PostgisSinkSchema.parse(sinkConfig)));
async function sinkOnly(label: string, want: "applied" | "deduped") {
  const started = performance.now();
  for (let from = 0; from < payloads.length; from += PAGE) {
    const page = payloads.slice(from, from + PAGE);
    const answers = await Promise.all(
      page.map((p, i) =>
        sink.submit(
          {
            itemId: String(from + i),
            batchId: "0",
            deadLetterId: "0",
            kind: "spatial",
            idempotencyKey: p.key,
            entityKey: p.entity,
            observedAt: p.observed,
            payload: p.payload as never,
          },
          new AbortController().signal,
        ),
      ),
    );
    const off = answers.find((a) => a.outcome !== want);
    if (off) throw new Error(`${label}: expected ${want}, got ${JSON.stringify(off)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const perSecond = Math.round(payloads.length / seconds);
  say(`${label}: ${payloads.length} features in ${seconds.toFixed(2)} s = ${perSecond}/s`);
  return { seconds: Number(seconds.toFixed(2)), perSecond };
}
await resetTarget();
results.sinkStatementOnly = await sinkOnly("sink statement only (1 connection, no engine)", "applied");
results.sinkAllDeduped = await sinkOnly("the same keys again (all deduped by the key table)", "deduped");

process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
await closeTargetPools();
await target.drop();
await db.pool.end();
await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
await admin.end();
await server.stop();
