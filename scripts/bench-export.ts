// `npm run bench:export [-- --count 1000000 --db redrive_bench_forensics --reseed --runs 200 --skip-lookup
//   --exports ndjson-masked,ndjson,csv-masked,geojson-masked --repeat 1 --batch 1000 --off-thread]`
// Forensics at 1M records on a dedicated database: (1) lookup latency by every identifier, by place and in the
// ledger, p50/p95 over --runs random targets (target p95 ≤ 50 ms); (2) export throughput of the whole table as
// NDJSON (masked and in clear), CSV and GeoJSON (target ≥ 20,000 records/s), consumed as a client would, with
// peak RSS. The database is seeded once (scripts/bench/seed-bulk.ts) with realistic envelopes (~400 bytes,
// 1 AFC tap in 25 carrying card data) and reused by later runs unless --reseed. The first export of a run is
// "cold" for this process (JIT, connections; PostgreSQL's caches are whatever the machine holds); --repeat
// runs each export again in the same process ("warm"). --off-thread runs each export as GET /api/export does, on
// an ingest thread read a chunk at a time (lib/api/off-thread-reads.ts; audited there, which is where the count
// comes from); node CPU counts every thread of the process, and --batch does not apply.
import { parseArgs } from "node:util";
import { UNSCOPED } from "../lib/scope/record-scope";
import pg from "pg";
import { streamOffThread } from "../lib/api/off-thread-reads";
import { SYSTEM_ACTOR } from "../lib/audit/actor";
import { closeDb } from "../lib/db/client";
import { withSessionSetup } from "../lib/db/session";
import { sharedNormalizePool } from "../lib/dead-letters/ingest/normalize-pool";
import { connectionFields } from "../lib/db/pg-adapter";
import { applyMigrations } from "../lib/db/migrate";
import { resolveDatabase } from "../lib/db/resolve";
import { exportStream } from "../lib/forensics/export/stream";
import { lookup } from "../lib/forensics/lookup";
import { EXPORT_FORMATS, LookupQuerySchema, type ExportFormat } from "../lib/forensics/forensics-schemas";
import { DEFAULT_MASK_RULES } from "../lib/masking/rules";
import { seedBulk } from "./bench/seed-bulk";

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "1000000" },
    db: { type: "string", default: "redrive_bench_forensics" },
    reseed: { type: "boolean", default: false },
    runs: { type: "string", default: "200" },
    "skip-export": { type: "boolean", default: false },
    "skip-lookup": { type: "boolean", default: false },
    exports: { type: "string", default: "ndjson-masked,ndjson,csv-masked,geojson-masked" },
    repeat: { type: "string", default: "1" },
    batch: { type: "string" },
    "off-thread": { type: "boolean", default: false },
  },
});
const COUNT = Number(args.count);
const RUNS = Number(args.runs);
const say = (m: string) => console.log(`[bench:export] ${m}`);

const handle = await resolveDatabase();
const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
await admin.connect();
const url = new URL(handle.url);
url.pathname = `/${args.db}`;
if (args.reseed) await admin.query(`DROP DATABASE IF EXISTS "${args.db}" WITH (FORCE)`);
if ((await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [args.db])).rowCount !== 1)
  await admin.query(`CREATE DATABASE "${args.db}"`);
await admin.end();
await applyMigrations(url.toString());
const pool = new pg.Pool(withSessionSetup({ connectionString: url.toString(), max: 6 }));
// what getDb() (the off-thread export's) connects to
process.env.DATABASE_URL = url.toString();
if (args["off-thread"]) sharedNormalizePool()?.warm();

const have = Number((await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM dead_letter")).rows[0]?.n ?? 0);
if (have < COUNT) {
  say(`seeding ${(COUNT - have).toLocaleString("en")} rows into ${args.db}`);
  const client = await pool.connect();
  await seedBulk(client, COUNT, say);
  // seed-bulk writes stub envelopes; an export benchmark needs envelopes of a real size. The keep-evidence
  // trigger forbids rewriting them, so it is switched off for this one statement, on this bench database only.
  say("writing realistic raw envelopes (bench database only: keep-evidence trigger disabled for this statement)");
  await client.query("ALTER TABLE dead_letter DISABLE TRIGGER dead_letter_keep_evidence");
  await client.query(`UPDATE dead_letter SET raw_envelope = CASE
      WHEN kind = 'spatial' THEN json_build_object('kind', 'spatial', 'source', source, 'idempotency_key', idempotency_key,
        'observed_at', observed_at, 'source_message_id', source_message_id, 'feature', payload, 'dead_letter_reason', first_failure_reason,
        'replay_count', replay_count)::text
      ELSE json_build_object('kind', 'afc', 'source', source, 'raw_payload',
        CASE WHEN id % 25 = 0 THEN payload || jsonb_build_object('card_pan', '4111111111111111', 'account_ref', 'acct-' || id) ELSE payload END,
        'failure_reason', first_failure_reason, 'retry_count', replay_count, 'first_seen_utc', first_seen_at)::text END`);
  await client.query("ALTER TABLE dead_letter ENABLE TRIGGER dead_letter_keep_evidence");
  client.release();
  say("VACUUM ANALYZE (index-only scans need the visibility map)");
  await pool.query("VACUUM ANALYZE dead_letter");
  await pool.query("VACUUM ANALYZE dead_letter_stat");
}
if ((await pool.query("SELECT 1 FROM ledger_entry LIMIT 1")).rowCount === 0) {
  say("ledger: marking the replayed records' keys as settled");
  await pool.query(`INSERT INTO ledger_entry (idempotency_key, kind, entity_key, observed_at, applied_at, dead_letter_id, origin)
    SELECT idempotency_key, kind, entity_key, observed_at, updated_at, id, 'replay' FROM dead_letter
    WHERE status = 'replayed' AND idempotency_key IS NOT NULL ON CONFLICT DO NOTHING`);
  await pool.query("VACUUM ANALYZE ledger_entry");
}

// ── lookup ───────────────────────────────────────────────────────────────────────────────────────────────
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

const sample = (
  await pool.query<{ key: string | null; event_id: string | null; device_id: string | null; msg: string | null; observed_at: Date }>(
    `SELECT idempotency_key AS key, event_id, device_id, source_message_id AS msg, observed_at FROM dead_letter TABLESAMPLE SYSTEM (1) REPEATABLE (7) LIMIT ${RUNS * 4}`,
  )
).rows;
const ledgerKeys = (
  await pool.query<{ key: string }>(`SELECT idempotency_key AS key FROM ledger_entry TABLESAMPLE SYSTEM (5) REPEATABLE (7) LIMIT ${RUNS}`)
).rows;
const places = (
  await pool.query<{ x: number; y: number; observed_at: Date }>(
    `SELECT (bbox[1])[0] AS x, (bbox[1])[1] AS y, observed_at FROM dead_letter TABLESAMPLE SYSTEM (1) REPEATABLE (9) WHERE bbox IS NOT NULL LIMIT ${RUNS}`,
  )
).rows;
const day = (d: Date) => ({
  from: new Date(d.getTime() - 12 * 3_600_000).toISOString(),
  to: new Date(d.getTime() + 12 * 3_600_000).toISOString(),
});

const cases: [string, Record<string, unknown>[]][] = [
  ["idempotency key", sample.filter((s) => s.key).map((s) => ({ q: s.key }))],
  ["event hash prefix (10)", sample.filter((s) => s.key && /^[0-9a-f]{64}$/.test(s.key)).map((s) => ({ q: s.key!.slice(0, 10) }))],
  ["event_id", sample.filter((s) => s.event_id).map((s) => ({ q: s.event_id }))],
  ["device_id, no window", sample.filter((s) => s.device_id).map((s) => ({ q: s.device_id }))],
  ["device_id + 1-day window", sample.filter((s) => s.device_id).map((s) => ({ q: s.device_id, ...day(s.observed_at) }))],
  ["source message id", sample.filter((s) => s.msg).map((s) => ({ q: s.msg }))],
  ["ledger key", ledgerKeys.map((l) => ({ q: l.key }))],
  ["near 1 km + 1-day window", places.map((p) => ({ near: `${p.x},${p.y}`, radiusKm: "1", ...day(p.observed_at) }))],
  ["bbox ~2 km, no window", places.map((p) => ({ bbox: `${p.x - 0.01},${p.y - 0.01},${p.x + 0.01},${p.y + 0.01}` }))],
  ["miss", Array.from({ length: RUNS }, (_, i) => ({ q: `no-such-key-${i}` }))],
];
if (!args["skip-lookup"])
  say(`lookup at ${COUNT.toLocaleString("en")} records, ${RUNS} runs per case (ms, wall time incl. the round trip)`);
for (const [name, raw] of args["skip-lookup"] ? [] : cases) {
  const queries = raw.slice(0, RUNS).map((r) => LookupQuerySchema.parse(r));
  for (const q of queries.slice(0, 5)) await lookup(pool, UNSCOPED, q, DEFAULT_MASK_RULES); // warm
  const times: number[] = [];
  let found = 0;
  for (const q of queries) {
    const t = performance.now();
    const r = await lookup(pool, UNSCOPED, q, DEFAULT_MASK_RULES);
    times.push(performance.now() - t);
    if (r.records.length + r.ledger.length > 0) found++;
  }
  say(
    `  ${name.padEnd(26)} n=${String(times.length).padStart(3)} hit=${String(found).padStart(3)}  p50 ${pct(times, 50).toFixed(1).padStart(6)}  p95 ${pct(times, 95).toFixed(1).padStart(6)}  max ${Math.max(
      ...times,
    )
      .toFixed(1)
      .padStart(6)}`,
  );
}

// ── export ───────────────────────────────────────────────────────────────────────────────────────────────
if (!args["skip-export"]) {
  const runs = args.exports.split(",").map((e): [ExportFormat, boolean] => {
    const [format, masked] = e.trim().split("-");
    if (!EXPORT_FORMATS.includes(format as ExportFormat) || (masked !== undefined && masked !== "masked"))
      throw new Error(`--exports: unknown export ${e}`);
    return [format as ExportFormat, masked === "masked"];
  });
  const batchSize = args.batch === undefined ? undefined : Number(args.batch);
  for (let round = 0; round < Number(args.repeat); round++)
    for (const [format, masked] of runs) {
      const started = performance.now();
      // CPU time of this process too: on a shared machine wall time swings with other work, CPU time much less.
      const cpu = process.cpuUsage();
      let peak = process.memoryUsage().rss;
      const mask = masked ? DEFAULT_MASK_RULES : null;
      const { stream, stats } = args["off-thread"]
        ? {
            stream: streamOffThread("export", {
              scope: UNSCOPED,
              format,
              filter: {},
              mask,
              actor: SYSTEM_ACTOR,
              requestId: "bench",
              now: new Date(),
            }),
            stats: { records: Number.NaN, skipped: Number.NaN, bytes: 0 },
          }
        : exportStream(pool, { scope: UNSCOPED, format, filter: {}, mask, batchSize });
      const reader = stream.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (args["off-thread"]) stats.bytes += value.length;
        peak = Math.max(peak, process.memoryUsage().rss);
      }
      // off the thread, the count is the audit event's
      if (args["off-thread"]) {
        const { rows } = await pool.query<{ count: number; skipped: number }>(
          "SELECT (after->>'count')::int AS count, (after->>'skipped')::int AS skipped FROM audit_event WHERE action = 'dead_letters.exported' ORDER BY id DESC LIMIT 1",
        );
        stats.records = rows[0]?.count ?? 0;
        stats.skipped = rows[0]?.skipped ?? 0;
      }
      const secs = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      say(
        `export ${Number(args.repeat) > 1 ? `run ${round + 1} ` : ""}${format.padEnd(7)} ${masked ? "masked  " : "in clear"}: ${stats.records.toLocaleString("en")} records (${stats.skipped} skipped), ` +
          `${(stats.bytes / 1e6).toFixed(0)} MB in ${secs.toFixed(1)} s = ${Math.round(stats.records / secs).toLocaleString("en")} records/s, ` +
          `node CPU ${((used.user + used.system) / Math.max(1, stats.records)).toFixed(1)} µs/record, peak RSS ${Math.round(peak / 1e6)} MB`,
      );
    }
}
await pool.end();
await sharedNormalizePool()?.close();
await closeDb();
await handle.stop();
