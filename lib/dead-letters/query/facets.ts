import "server-only";
import type pg from "pg";
import { facetsFromCube, nonFacetFilter, rollupCanCount, splitByDay, type CubeCell } from "./facet-cube";
import type { ListFilter } from "../filters";
import type { Facets } from "../contract/facets";
import { commonLexemes } from "./common-lexemes";
import { paramsOf, sourceColumnSql, type RecordScope } from "../../scope/record-scope";
import { buildWhere, buildWhereBranches, commonWordsSql, payloadWords, searchParts, selectBranches } from "./where";

// Facet counts for the list (GET /api/dead-letters/facets). Counting a large table directly is too slow for the
// list even as an index-only scan (bench:list), so the count comes from the cheapest source that is exact for
// the filter:
//   1. dead_letter_stat, the trigger-maintained rollup per (facet columns, UTC day): far fewer rows than
//      records, exact for every filter made of facet columns and whole days (the UI only sends
//      whole days); partial days at the ends are estimated from their day's rollup (exact: false);
//   2. a viewport: the covering GiST index (dead_letter_view_idx) holds every facet column, so the cube is an
//      index-only scan, capped at VIEW_CAP entries;
//   3. a search (q): selective by construction (exact key/id or an 8+ character hash prefix), counted directly,
//      one bounded branch per condition (a device's from an index holding the facet columns);
//      a broker source (origin, a column the rollup does not hold) is counted directly too, from its own index;
//   4. beyond the caps, an estimate from a repeatable 1–3% page sample, flagged exact: false.

export const VIEW_CAP = 20_000;
export const DIRECT_CAP = 50_000;
/**
 * A search's matches are counted exactly up to this many, per condition (a device's taps: up to DIRECT_CAP, index-only,
 * searchCube). Its payload words come from the GIN index in no useful
 * order, a heap fetch each for the facet columns (the pages scattered), which past this many takes too long for the list. A search
 * with more is counted from the sample, which tests the stored search document (dead_letter.search_doc) on
 * SAMPLE_ROWS records, at once when its words are common (commonWords).
 */
export const SEARCH_DIRECT_CAP = 5_000;
/** Rows a sample should hold: enough for ±1% on the large buckets. */
const SAMPLE_ROWS = 30_000;

type Db = pg.Pool | pg.PoolClient;

const CUBE_COLUMNS = "kind::text AS kind, status::text AS status, failure_class::text AS failure_class, source, reason_group";
const GROUP = "GROUP BY 1, 2, 3, 4, 5";

interface CubeRow {
  kind: string;
  status: string;
  failure_class: string;
  source: string;
  reason_group: string;
  n: string;
}

const toCells = (rows: CubeRow[]): CubeCell[] => rows.map((r) => ({ ...r, n: Number(r.n) }));

async function rollupDays(db: Db, scope: RecordScope, first: string | null, last: string | null): Promise<CubeCell[]> {
  const values: unknown[] = [];
  const where: string[] = [];
  if (!scope.all) where.push(sourceColumnSql(scope, paramsOf(values), "source"));
  if (first) where.push(`day >= $${values.push(first)}::date`);
  if (last) where.push(`day <= $${values.push(last)}::date`);
  const { rows } = await db.query<CubeRow>(
    `SELECT ${CUBE_COLUMNS}, sum(n)::text AS n FROM dead_letter_stat ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     ${GROUP} HAVING sum(n) <> 0`,
    values,
  );
  return toCells(rows);
}

const DAY_MS = 86_400_000;

/**
 * The cube for a time range from the rollup. Partial days at the ends (only API callers send them; the UI's
 * range is whole days) are either counted from dead_letter — exact, ~36k rows a day at 1M records with a heap
 * fetch each, 300–500 ms — or, for the facet panel, estimated as the day's rollup times the share of the day
 * covered (`exact: false`).
 */
async function rollupCube(
  db: Db,
  scope: RecordScope,
  filter: ListFilter,
  edges: "exact" | "estimate",
): Promise<{ cells: CubeCell[]; exact: boolean }> {
  const split = splitByDay(filter.from, filter.to);
  const parts: Promise<CubeCell[]>[] = [];
  if (split.anyDay) parts.push(rollupDays(db, scope, split.firstDay, split.lastDay));
  for (const edge of split.edges) {
    if (edges === "exact") {
      parts.push(directCube(db, scope, { from: edge.from, to: edge.to }, Infinity).then((r) => r.cells));
    } else {
      const day = edge.from.slice(0, 10);
      const share = Math.min(1, (Date.parse(edge.to) - Date.parse(edge.from) + 1) / DAY_MS);
      parts.push(rollupDays(db, scope, day, day).then((cells) => cells.map((c) => ({ ...c, n: c.n * share }))));
    }
  }
  return { cells: (await Promise.all(parts)).flat(), exact: edges === "exact" || split.edges.length === 0 };
}

async function directCube(db: Db, scope: RecordScope, filter: ListFilter, cap: number): Promise<{ cells: CubeCell[]; capped: boolean }> {
  const where = buildWhere(scope, filter);
  const limit = Number.isFinite(cap) ? `LIMIT ${cap + 1}` : "";
  const { rows } = await db.query<CubeRow>(
    `SELECT ${CUBE_COLUMNS.replaceAll("::text", "")}, count(*)::text AS n
     FROM (SELECT ${CUBE_COLUMNS} FROM dead_letter d WHERE ${where.text} ${limit}) s ${GROUP}`,
    where.values,
  );
  const cells = toCells(rows);
  return { cells, capped: cells.reduce((sum, c) => sum + c.n, 0) > cap };
}

/**
 * A search's cube: one bounded branch per condition `q` stands for (where.ts searchParts), merged by record (a
 * record two conditions find counts once). A device's branch is index-only (dead_letter_device_cover_idx holds
 * every cube column), so a busy device is counted exactly up to DIRECT_CAP of its records at well under a µs each;
 * one OR over all conditions was a bitmap that fetched a heap page per match and gave up at SEARCH_DIRECT_CAP,
 * which a device passes as the table grows (3,750 taps each at 2M records, 18,750 at 10M). The other branches
 * still fetch the heap, and keep SEARCH_DIRECT_CAP.
 */
async function searchCube(db: Db, scope: RecordScope, filter: ListFilter, q: string): Promise<{ cells: CubeCell[]; capped: boolean }> {
  const values: unknown[] = [];
  const base = buildWhere(scope, { ...filter, q: undefined }, values).text;
  const parts = searchParts(q, (v) => `$${values.push(v)}`, "d");
  const conditions = parts.payload ? [...parts.identifiers, parts.payload.condition] : parts.identifiers;
  const branches = conditions.map((c, i) => {
    const cap = parts.covered.includes(c) ? DIRECT_CAP : SEARCH_DIRECT_CAP;
    return `(SELECT ${i} AS b, ${cap} AS cap, d.id, ${CUBE_COLUMNS} FROM dead_letter d WHERE ${base} AND ${c} LIMIT ${cap + 1})`;
  });
  const { rows } = await db.query<CubeRow & { capped: boolean }>(
    `WITH m AS MATERIALIZED (${branches.join("\n UNION ALL ")}),
       capped AS (SELECT coalesce(bool_or(n > cap), false) AS c FROM (SELECT b, cap, count(*) AS n FROM m GROUP BY b, cap) x)
     SELECT kind, status, failure_class, source, reason_group, count(*)::text AS n, (SELECT c FROM capped) AS capped
     FROM (SELECT DISTINCT ON (id) kind, status, failure_class, source, reason_group FROM m ORDER BY id) s ${GROUP}`,
    values,
  );
  return { cells: toCells(rows), capped: rows.some((r) => r.capped) };
}

/** Index-only over dead_letter_view_idx: every referenced column is in the index (kind is always spatial); one scan per search box. */
async function viewportCube(db: Db, scope: RecordScope, filter: ListFilter): Promise<{ cells: CubeCell[]; capped: boolean }> {
  const { branches, values } = buildWhereBranches(scope, filter);
  const { rows } = await db.query<CubeRow>(
    `SELECT 'spatial' AS kind, status::text AS status, failure_class::text AS failure_class, source, reason_group,
       count(*)::text AS n
     FROM (${selectBranches("d.status, d.failure_class, d.source, d.reason_group", branches)}
           LIMIT ${VIEW_CAP + 1}) s
     GROUP BY 2, 3, 4, 5`,
    values,
  );
  const cells = toCells(rows);
  return { cells, capped: cells.reduce((sum, c) => sum + c.n, 0) > VIEW_CAP };
}

/** Whether every word `q` looks for in payloads is common (where.ts commonWordsSql): its matches are many. */
async function commonWords(db: Db, q: string): Promise<boolean> {
  const words = payloadWords(q);
  if (!words) return false;
  const { rows } = await db.query<{ c: boolean }>(`SELECT ${commonWordsSql("$1", "$2")} AS c`, [words, await commonLexemes(db)]);
  return rows[0]?.c === true;
}

async function sampledCube(db: Db, scope: RecordScope, filter: ListFilter): Promise<{ cells: CubeCell[]; scale: number }> {
  const est = await db.query<{ n: number }>("SELECT GREATEST(reltuples, 1)::float8 AS n FROM pg_class WHERE oid = 'dead_letter'::regclass");
  const percent = Math.min(100, Math.max(0.1, (100 * SAMPLE_ROWS) / (est.rows[0]?.n ?? SAMPLE_ROWS)));
  const where = buildWhere(scope, filter);
  // REPEATABLE: the same pages every time, so refreshing the page does not make the numbers jitter.
  const { rows } = await db.query<CubeRow>(
    `SELECT ${CUBE_COLUMNS}, count(*)::text AS n FROM dead_letter d TABLESAMPLE SYSTEM (${percent.toFixed(3)}) REPEATABLE (42)
     WHERE ${where.text} ${GROUP}`,
    where.values,
  );
  return { cells: toCells(rows), scale: 100 / percent };
}

export async function facetCounts(db: Db, scope: RecordScope, filter: ListFilter): Promise<Facets> {
  const rest = nonFacetFilter(filter);
  if (rollupCanCount(rest) && rollupCanScope(scope)) {
    maybeCompact(db);
    const cube = await rollupCube(db, scope, rest, "estimate");
    return facetsFromCube(cube.cells, filter, cube.exact);
  }
  if (rest.q !== undefined && (await commonWords(db, rest.q))) {
    const sample = await sampledCube(db, scope, rest);
    return facetsFromCube(sample.cells, filter, false, sample.scale);
  }
  const exact =
    rest.q !== undefined
      ? await searchCube(db, scope, rest, rest.q)
      : rest.bbox !== undefined
        ? await viewportCube(db, scope, rest)
        : await directCube(db, scope, rest, DIRECT_CAP);
  if (!exact.capped) return facetsFromCube(exact.cells, filter, true);
  const sample = await sampledCube(db, scope, rest);
  return facetsFromCube(sample.cells, filter, false, sample.scale);
}

/** The rollup counts per source: a scope naming broker sources (origin_source, not in the rollup) is counted from the records. */
function rollupCanScope(scope: RecordScope): boolean {
  return scope.all || scope.origins.length === 0;
}

/**
 * Exact number of records matching a filter (bulk actions confirm it): from the rollup when the filter allows,
 * otherwise counted directly.
 */
export async function countMatching(db: Db, scope: RecordScope, filter: ListFilter): Promise<number> {
  const rest = nonFacetFilter(filter);
  if (rollupCanCount(rest) && rollupCanScope(scope))
    return facetsFromCube((await rollupCube(db, scope, rest, "exact")).cells, filter, true).total;
  if (filter.bbox) {
    // Only spatial records have a box, and kind is not in dead_letter_view_idx: leaving it out keeps the count
    // index-only (400k rows, Europe's 86,863 records: 79 ms as a UNION ALL, 1.4 s as an OR's bitmap heap scan).
    if (filter.kind && !filter.kind.includes("spatial")) return 0;
    const { branches, values } = buildWhereBranches(scope, { ...filter, kind: undefined });
    const { rows } = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM (${selectBranches("1", branches)}) s`, values);
    return Number(rows[0]?.n ?? 0);
  }
  const where = buildWhere(scope, filter);
  const { rows } = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM dead_letter d WHERE ${where.text}`, where.values);
  return Number(rows[0]?.n ?? 0);
}

// ── compaction ───────────────────────────────────────────────────────────────────────────────────────────
// Every write statement appends delta rows; summing them per cell keeps the rollup near one row per cell.
// Runs in the background at most once a minute per process, never in a request's path; DELETE … RETURNING
// only returns rows this transaction really deleted, so even two concurrent compactions stay correct.

export const COMPACT_ABOVE_ROWS = 20_000;
const COMPACT_EVERY_MS = 60_000;
const COMPACT_LOCK = 0x5245_4446; // "REDF"
let lastCompaction = 0;

export function maybeCompact(db: Db): void {
  const now = Date.now();
  if (now - lastCompaction < COMPACT_EVERY_MS || !("connect" in db) || typeof db.connect !== "function") return;
  lastCompaction = now;
  compactStats(db as pg.Pool).catch((err: unknown) => console.error("[facets] compaction failed", err));
}

/** Each cell's delta rows replaced by their sum (a cell summing to 0 leaves); the rows removed. */
const MOVE_CELLS = `WITH moved AS (DELETE FROM dead_letter_stat RETURNING kind, status, failure_class, source, reason_group, day, n),
    ins AS (INSERT INTO dead_letter_stat (kind, status, failure_class, source, reason_group, day, n)
      SELECT kind, status, failure_class, source, reason_group, day, sum(n) FROM moved
      GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5, 6 RETURNING 1)
  SELECT (SELECT count(*) FROM moved)::int - (SELECT count(*) FROM ins)::int AS removed`;

/** Rows of dead_letter_stat a page holds, about (seven short columns). */
const STAT_ROWS_PER_PAGE = 60;

/**
 * A vacuum frees the pages of the rows a compaction replaced, but the sums went in after them, at the table's end,
 * so the table stays as long as the burst of deltas was (10M records bulk-loaded: 9,856 rows on 26,038 pages, a
 * 70 ms read of the facets). When it is far longer than its rows need, they are moved once more, into the freed
 * pages at the front, and the vacuum after cuts the empty end off (it does that only where no one waits for the
 * table, so it never blocks a reader or ingest). Both steps are a few ms on a rollup this size.
 */
async function shrinkStats(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ pages: number; live: number }>(
    `SELECT (pg_relation_size('dead_letter_stat') / current_setting('block_size')::int)::int AS pages,
       (SELECT count(*) FROM dead_letter_stat)::int AS live`,
  );
  const { pages = 0, live = 0 } = rows[0] ?? {};
  if (pages <= 4 * Math.ceil(live / STAT_ROWS_PER_PAGE) + 64) return;
  await client.query("BEGIN");
  const lock = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS ok", [COMPACT_LOCK]);
  if (!lock.rows[0]?.ok) {
    await client.query("COMMIT");
    return;
  }
  await client.query(MOVE_CELLS);
  await client.query("COMMIT");
  // INDEX_CLEANUP ON: with the rows' index entries on only a few pages, VACUUM would skip the indexes and leave
  // those pages' dead item pointers, so the end of the table would not be empty and would stay.
  await client.query("VACUUM (INDEX_CLEANUP ON) dead_letter_stat");
}

/** Sums the rollup's delta rows per cell when there are more than `above`; returns the rows removed. */
export async function compactStats(pool: pg.Pool, above = COMPACT_ABOVE_ROWS): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const lock = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS ok", [COMPACT_LOCK]);
    const count = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM dead_letter_stat");
    if (!lock.rows[0]?.ok || (count.rows[0]?.n ?? 0) <= above) {
      await client.query("COMMIT");
      // A table left long by an earlier compaction (or by a server stopped before its shrink) is shrunk here.
      if (lock.rows[0]?.ok) await shrinkStats(client);
      return 0;
    }
    const { rows } = await client.query<{ removed: number }>(MOVE_CELLS);
    await client.query("COMMIT");
    const removed = rows[0]?.removed ?? 0;
    // The rows it replaced are dead until vacuumed, and every read of the rollup (the facets, the list's emptiness
    // check) reads their pages too: at 2M seeded records, 9,856 live rows sat among 298,753 dead ones on 5,169
    // pages, 47–71 ms a read, growing with every statement's deltas until autovacuum came round. The table is
    // small once compacted, so this is a few ms, at most once a minute; outside a transaction, as VACUUM must be.
    // TRUNCATE false: cutting the table's empty end takes an exclusive lock, and once taken, every ingest adding its
    // deltas waits behind it (348 ms, seen during a 10M backfill); shrinkStats cuts the end when it is worth it.
    if (removed > 0) {
      await client.query("VACUUM (TRUNCATE false) dead_letter_stat");
      await shrinkStats(client);
    }
    return removed;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
