// `npm run bench:list [-- --count 1000000 --db redrive_bench --reseed --runs 60 --seed-only --only TEXT --explain]`
// Server-side time of the triage list's queries on a dedicated database of 1M synthetic dead letters: every
// single filter, a combined filter, viewports, key/hash lookups, payload search, facet counts and map points, as
// p50/p95/p99. Targets: list page p95 ≤ 50 ms (the combined filter and lookups ≤ 25 ms), payload search p95 ≤
// 250 ms, facets p95 ≤ 250 ms. The database is seeded once (scripts/bench/seed-bulk.ts) and reused by later runs
// unless --reseed; a larger --count adds the missing rows, and a seed cut off goes on where it stopped.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { scopeOf, UNSCOPED, type RecordScope } from "../lib/scope/record-scope";
import pg from "pg";
import { withSessionSetup } from "../lib/db/session";
import { connectionFields } from "../lib/db/pg-adapter";
import { applyMigrations } from "../lib/db/migrate";
import { resolveDatabase } from "../lib/db/resolve";
import { compactStats, facetCounts } from "../lib/dead-letters/query/facets";
import { ListQuerySchema, type ListFilter } from "../lib/dead-letters/filters";
import { listDeadLetters } from "../lib/dead-letters/query/list";
import { mapPoints } from "../lib/dead-letters/query/map-points";
import { PLACES } from "../lib/seed/places";
import { seedBulk } from "./bench/seed-bulk";
import { utcMicrosOfDate } from "../lib/time/instant";

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "1000000" },
    db: { type: "string", default: "redrive_bench" },
    reseed: { type: "boolean", default: false },
    runs: { type: "string", default: "60" },
    // seed (or finish seeding) the database and stop: for bench:migration and bench:retention, which reuse it
    "seed-only": { type: "boolean", default: false },
    // run only the scenarios whose name contains one of these (case-insensitive; repeatable)
    only: { type: "string", multiple: true },
    // instead of timing, print EXPLAIN (ANALYZE, BUFFERS) of every statement the chosen scenarios run, once each
    explain: { type: "boolean", default: false },
  },
});
const COUNT = Number(args.count);
const RUNS = Number(args.runs);
const say = (m: string) => console.log(`[bench:list] ${m}`);

const handle = await resolveDatabase();
const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
await admin.connect();
const url = new URL(handle.url);
url.pathname = `/${args.db}`;
if (args.reseed) await admin.query(`DROP DATABASE IF EXISTS "${args.db}" WITH (FORCE)`);
const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [args.db])).rowCount === 1;
if (!exists) await admin.query(`CREATE DATABASE "${args.db}"`);
await admin.end();
await applyMigrations(url.toString());
const pool = new pg.Pool(withSessionSetup({ connectionString: url.toString(), max: 4 }));
const have = Number((await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM dead_letter")).rows[0]?.n ?? 0);
{
  // Also finishes a load an earlier run left half-way (its indexes are rebuilt even when no row is missing). The
  // pool: chunks are written on two connections at once.
  const seeded = await seedBulk(pool, COUNT, say);
  if (seeded > 0) {
    say("VACUUM ANALYZE (index-only scans need the visibility map)");
    await pool.query("VACUUM ANALYZE dead_letter");
  }
}
// A running server's rollup is compacted (facets.ts maybeCompact) and vacuumed: one just seeded holds a delta row
// per cell per seeding statement, and a compaction first run inside the timed scenarios would be measured with them.
say(`rollup: ${(await compactStats(pool, 0)).toLocaleString("en")} delta rows compacted`);
await pool.query("VACUUM ANALYZE dead_letter_stat");
if (args["seed-only"]) {
  await pool.end();
  await handle.stop();
  process.exit(0);
}
// A server that has run a while has its table in memory; one just seeded, or migrated (a rewrite makes new files),
// does not, and its first reads of each page go to disk. The figures are for the steady state: the table and its
// indexes are read once through the OS cache first (pg_prewarm, a contrib module; without it, left cold).
const warmed = await pool
  .query("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
  .then(() =>
    pool.query<{ blocks: string }>(
      `SELECT sum(pg_prewarm(c.oid, 'read'))::text AS blocks FROM pg_class c
     WHERE c.oid = 'dead_letter'::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'dead_letter'::regclass)`,
    ),
  )
  .then(
    (r) => `${Number(r.rows[0]?.blocks ?? 0).toLocaleString("en")} blocks of dead_letter and its indexes read first`,
    (e: unknown) => `cache not warmed (pg_prewarm: ${e instanceof Error ? e.message : String(e)})`,
  );
say(`${Math.max(have, COUNT).toLocaleString("en")} dead letters in ${args.db}; ${warmed}; ${RUNS} runs per scenario after warm-up`);

// ── inputs drawn from the data ──────────────────────────────────────────────────────────────────────────────
const sample = (
  await pool.query<{ key: string; kind: string; event_id: string | null; device_id: string | null }>(
    "SELECT idempotency_key AS key, kind, event_id, device_id FROM dead_letter TABLESAMPLE SYSTEM (0.1) WHERE idempotency_key IS NOT NULL LIMIT 500",
  )
).rows;
const groups = (await pool.query<{ g: string }>("SELECT DISTINCT reason_group AS g FROM dead_letter_stat")).rows.map((r) => r.g);
const sources = (await pool.query<{ s: string }>("SELECT DISTINCT source AS s FROM dead_letter_stat")).rows.map((r) => r.s);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;
const DAY = 86_400_000;
const oneDay = (): Pick<ListFilter, "from" | "to"> => {
  const start = Date.UTC(2026, 10, 1) + Math.floor(Math.random() * 27) * DAY;
  return { from: utcMicrosOfDate(new Date(start)), to: utcMicrosOfDate(new Date(start + DAY - 1)).replace(/000Z$/, "999Z") };
};
const around = (span: number): ListFilter["bbox"] => {
  const p = pick(PLACES);
  const x = p.lon + (Math.random() - 0.5) * 0.1,
    y = p.lat + (Math.random() - 0.5) * 0.1;
  return [x - span / 2, y - span / 2, x + span / 2, y + span / 2];
};
const sensor = () => `SN-${Math.floor(Math.random() * 50_000)}`;
const hashes = sample.filter((s) => s.kind === "afc");
const keys = sample.filter((s) => s.kind === "spatial");

// ── scenarios ───────────────────────────────────────────────────────────────────────────────────────────────
type Scenario = [name: string, run: () => Promise<unknown>];
// A team whose sources are half of them (every other one, the first as a prefix): its user's list, facets and search
// run with the scope's predicate beside the company-wide figures.
const half = [...sources].sort().filter((_, i) => i % 2 === 0);
const TEAM_SCOPE = scopeOf([
  {
    id: "1",
    claims: [{ source: `${half[0]!.slice(0, Math.max(1, half[0]!.length - 2))}*` }, ...half.slice(1).map((source) => ({ source }))],
  },
]);

/**
 * --explain: a stand-in for the pool that shows each statement's plan as it ran (EXPLAIN ANALYZE runs it) and then
 * runs it again for the rows the caller reads next (a rollup's count decides the list's plan).
 */
const explaining = {
  async query(text: string, values?: unknown[]) {
    const plan = await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, values);
    console.log(`\n${text.replace(/\s+/g, " ").slice(0, 400)}\n  values: ${JSON.stringify(values ?? []).slice(0, 300)}`);
    for (const r of plan.rows) console.log(`  ${r["QUERY PLAN"]}`);
    return pool.query(text, values);
  },
} as unknown as pg.Pool;
const db = args.explain ? explaining : pool;

function scenariosFor(scope: RecordScope): Scenario[] {
  const list = (f: () => Record<string, unknown>) => () => listDeadLetters(db, scope, ListQuerySchema.parse(f()));
  const facets = (f: () => ListFilter) => () => facetCounts(db, scope, f());

  let scrollCursor: string | null = null;
  return [
    ["list: no filter, first page", list(() => ({}))],
    [
      "list: scrolling (next page by cursor)",
      async () => {
        const page = await listDeadLetters(db, scope, ListQuerySchema.parse(scrollCursor ? { cursor: scrollCursor } : {}));
        scrollCursor = page.nextCursor;
      },
    ],
    ["list: kind=afc", list(() => ({ kind: "afc" }))],
    ["list: status=pending", list(() => ({ status: "pending" }))],
    ["list: status=approved", list(() => ({ status: "approved" }))],
    ["list: class=poison", list(() => ({ class: "poison" }))],
    ["list: source=<random>", list(() => ({ source: pick(sources) }))],
    ["list: reason=<random group>", list(() => ({ reason: pick(groups) }))],
    ["list: one day (from/to)", list(() => oneDay())],
    [
      "list: combined (pending+afc+source+day)",
      list(() => ({ status: "pending", kind: "afc", source: pick(["gates.metro", "validators.bus", "tram.readers"]), ...oneDay() })),
    ],
    ["list: combined (pending+spatial+reason)", list(() => ({ status: "pending", kind: "spatial", reason: pick(groups) }))],
    ["list: viewport street (0.01°)", list(() => ({ bbox: around(0.01) }))],
    ["list: viewport city (0.3°)", list(() => ({ bbox: around(0.3) }))],
    ["list: viewport city + pending", list(() => ({ bbox: around(0.3), status: "pending" }))],
    ["list: viewport region (Europe)", list(() => ({ bbox: [-10, 35, 25, 60] }))],
    ["list: viewport empty ocean", list(() => ({ bbox: [-150, -40, -140, -30] }))],
    // seed-bulk's antimeridian boxes (179.9 → -179.85, stored 179.9..180.15) seen from east of -180: the +360 copy
    ["list: viewport east of -180 (unwrapped boxes)", list(() => ({ bbox: [-179.95, 40, -179.5, 60] }))],
    ["list: viewport across ±180", list(() => ({ bbox: [179, 40, 181, 60] }))],
    ["lookup: q=spatial key", list(() => ({ q: pick(keys).key }))],
    ["lookup: q=hash prefix (10 hex)", list(() => ({ q: pick(hashes).key.slice(0, 10) }))],
    ["lookup: q=full hash", list(() => ({ q: pick(hashes).key }))],
    ["lookup: q=event_id", list(() => ({ q: pick(hashes).event_id ?? "none" }))],
    ["lookup: q=device_id", list(() => ({ q: pick(hashes).device_id ?? "none" }))],
    // Payload search (seed-bulk: sensor SN-0…SN-49999 ~11 records each, note "… ref <hex>" ~6 each, a note
    // phrase on 1/7 of spatial records, an operator note on 1/20 of taps)
    ["search: q=payload value (sensor id)", list(() => ({ q: sensor() }))],
    ["search: q=path = value", list(() => ({ q: `properties.sensor = "${sensor()}"` }))],
    ["search: q=key:value", list(() => ({ q: `sensor:${sensor()}` }))],
    ["search: q=number condition (fare)", list(() => ({ q: `fare_amount_cents = ${175 + 25 * Math.floor(Math.random() * 7)}` }))],
    ["search: q=free words, rare", list(() => ({ q: `ref ${Math.floor(Math.random() * 99991).toString(16)}` }))],
    ["search: q=free words, common (~8%)", list(() => ({ q: pick(["fence line disputed", "hydrant relocated", "drainage easement"]) }))],
    ["search: q=free words, medium (~2%)", list(() => ({ q: pick(["firmware", "barrier", "offline buffer"]) }))],
    ["search: q=word + pending + afc", list(() => ({ q: "firmware", status: "pending", kind: "afc" }))],
    ["search: q=no match", list(() => ({ q: "zanzibar" }))],
    ["facets: no filter", facets(() => ({}))],
    ["facets: status=pending", facets(() => ({ status: ["pending"] }))],
    ["facets: kind+source+reason", facets(() => ({ kind: ["spatial"], source: [pick(sources)], reason: pick(groups) }))],
    ["facets: one day", facets(() => oneDay())],
    [
      "facets: partial days (12:00→12:00)",
      facets(() => {
        const d = oneDay();
        return {
          from: utcMicrosOfDate(new Date(Date.parse(d.from!) + DAY / 2)),
          to: utcMicrosOfDate(new Date(Date.parse(d.to!) + DAY / 2)),
        };
      }),
    ],
    ["facets: q=device_id", facets(() => ({ q: pick(hashes).device_id ?? "none" }))],
    ["facets: q=payload value (sensor id)", facets(() => ({ q: sensor() }))],
    ["facets: q=free words, common (~8%)", facets(() => ({ q: pick(["fence line disputed", "hydrant relocated", "drainage easement"]) }))],
    ["facets: viewport city", facets(() => ({ bbox: around(0.3) }))],
    ["facets: viewport region (sampled)", facets(() => ({ bbox: [-10, 35, 25, 60] }))],
    ["map: world, zoom 1 (sampled)", () => mapPoints(db, scope, { bbox: [-180, -85, 180, 85] }, 1)],
    ["map: city, zoom 11", () => mapPoints(db, scope, { bbox: around(0.3) }, 11)],
    ["map: street, zoom 16", () => mapPoints(db, scope, { bbox: around(0.01) }, 16)],
  ];
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
const fmt = (ms: number) => ms.toFixed(1).padStart(7);
async function timed(run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

const only = (args.only ?? []).map((o) => o.toLowerCase());
const chosen = (name: string) => !only.length || only.some((o) => name.toLowerCase().includes(o));
const company = scenariosFor(UNSCOPED).filter(([name]) => chosen(name));
const team = scenariosFor(TEAM_SCOPE).filter(([name]) => chosen(name));
if (args.explain) {
  for (const [scope, runs] of [
    ["company", company],
    ["team", team],
  ] as const) {
    for (const [name, run] of runs) {
      console.log(`\n── ${name} (${scope}) ──`);
      await run();
    }
  }
  await pool.end();
  await handle.stop();
  process.exit(0);
}
say(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
say(`team scenario: ${half.length} of ${sources.length} sources (${JSON.stringify(TEAM_SCOPE)})`);
console.log(
  `\n${"scenario".padEnd(44)}${"p50".padStart(7)}${"p95".padStart(7)}${"p99".padStart(7)}${"max".padStart(7)}  ms   │ team: ${"p50".padStart(7)}${"p95".padStart(7)}${"p99".padStart(7)}`,
);
for (const [i, [name, run]] of company.entries()) {
  const all = await timed(run);
  const scoped = await timed(team[i]![1]);
  console.log(
    `${name.padEnd(44)}${fmt(quantile(all, 0.5))}${fmt(quantile(all, 0.95))}${fmt(quantile(all, 0.99))}${fmt(all.at(-1)!)}     │       ${fmt(quantile(scoped, 0.5))}${fmt(quantile(scoped, 0.95))}${fmt(quantile(scoped, 0.99))}`,
  );
}
say(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
await pool.end();
await handle.stop();
process.exit(0);
