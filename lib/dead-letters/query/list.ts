import "server-only";
import type pg from "pg";
import type { DeadLetterSummary, ListPage } from "../contract/list";
import { utcMicrosSql } from "../../time/instant";
import { decodeCursor, encodeCursor } from "./cursor";
import { commonLexemes } from "./common-lexemes";
import { maybeCompact } from "./facets";
import type { ListQuery } from "../filters";
import type { RecordScope } from "../../scope/record-scope";
import { buildWhere, buildWhereBranches, commonWordsSql, searchParts, selectBranches, viewportClause, type PayloadMatch } from "./where";

const COLUMNS = `d.id::text AS id, d.kind, d.source, d.idempotency_key, d.event_id, d.device_id, d.reason,
  d.reason_group, d.failure_class, d.class_reason, d.status, ${utcMicrosSql("d.observed_at")} AS observed_at, d.replay_count, d.failure_count,
  d.version, d.analysis->>'outcome' AS outcome`;

interface Row {
  id: string;
  kind: DeadLetterSummary["kind"];
  source: string;
  idempotency_key: string | null;
  event_id: string | null;
  device_id: string | null;
  reason: string;
  reason_group: string;
  failure_class: DeadLetterSummary["failureClass"];
  class_reason: string | null;
  status: DeadLetterSummary["status"];
  /** to the microsecond (the cursor goes back into the query) */
  observed_at: string;
  replay_count: number;
  failure_count: number;
  version: number;
  outcome: string | null;
}

function toSummary(r: Row): DeadLetterSummary {
  return {
    id: r.id,
    kind: r.kind,
    source: r.source,
    idempotencyKey: r.idempotency_key,
    eventId: r.event_id,
    deviceId: r.device_id,
    reason: r.reason,
    reasonGroup: r.reason_group,
    failureClass: r.failure_class,
    classReason: r.class_reason,
    status: r.status,
    observedAt: r.observed_at,
    replayCount: r.replay_count,
    failureCount: r.failure_count,
    version: r.version,
    outcome: r.outcome,
  };
}

/**
 * A viewport holding at most this many records is listed by sorting its GiST entries; a fuller one by walking
 * observed_at until a page is found (a page / density entries, each cheaper than a GiST entry). The costs cross
 * near here, so neither plan reads many more entries than this (scripts/bench-list.ts measures both).
 */
export const VIEWPORT_CAP = 5_000;

const ORDER = (order: string, alias = "d") => `${alias}.observed_at ${order}, ${alias}.id ${order}`;

/** One page of the list, newest (or oldest) observation first, by keyset over (observed_at, id). */
export async function listDeadLetters(db: pg.Pool | pg.PoolClient, scope: RecordScope, query: ListQuery): Promise<ListPage> {
  if (query.bbox && query.kind && !query.kind.includes("spatial")) return { items: [], nextCursor: null }; // only spatial records have a box
  let rows: Row[] | null = null;
  if (query.bbox && !query.q) rows = await sortedViewport(db, scope, query);
  else if (!query.q && facetDimensions(query) >= 2) {
    // A combination of facets can be empty although each part is common (an AFC reason with kind=spatial):
    // walking one facet's index would then read all of it (~1 s at 1M rows). The rollup knows, in ~3 ms.
    // Walking the best index reads ~101 / density rows, so it stays the plan whenever anything matches.
    if ((await rollupUpperBound(db, query)) === 0) return { items: [], nextCursor: null };
  }
  rows ??= await walkObserved(db, scope, query);
  const items = rows.slice(0, query.limit).map(toSummary);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > query.limit && last ? encodeCursor({ observedAt: last.observedAt, id: last.id }) : null,
  };
}

function facetDimensions(f: ListQuery): number {
  return [f.kind, f.status, f.class, f.source, f.reason].filter((v) => v !== undefined).length;
}

/** Records matching the facet columns in the days overlapping [from, to]: exact for whole days, else an upper bound. */
async function rollupUpperBound(db: pg.Pool | pg.PoolClient, f: ListQuery): Promise<number> {
  // The rollup has no index: this reads all of it, and its delta rows (one per cell per ingest statement) grow
  // until compacted, when reading them would be most of a list page's time. The list compacts it too, not only the facet panel (an API client may never ask for facets).
  maybeCompact(db);
  const values: unknown[] = [];
  const where: string[] = [];
  if (f.kind) where.push(`kind = ANY($${values.push(f.kind)}::"DeadLetterKind"[])`);
  if (f.status) where.push(`status = ANY($${values.push(f.status)}::"DeadLetterStatus"[])`);
  if (f.class) where.push(`failure_class = ANY($${values.push(f.class)}::"FailureClass"[])`);
  if (f.source) where.push(`source = ANY($${values.push(f.source)}::text[])`);
  if (f.reason) where.push(`reason_group = $${values.push(f.reason)}`);
  if (f.from) where.push(`day >= ($${values.push(f.from)}::timestamptz AT TIME ZONE 'UTC')::date`);
  if (f.to) where.push(`day <= ($${values.push(f.to)}::timestamptz AT TIME ZONE 'UTC')::date`);
  const { rows } = await db.query<{ n: string | null }>(
    `SELECT sum(n)::text AS n FROM dead_letter_stat WHERE ${where.join(" AND ") || "TRUE"}`,
    values,
  );
  return Number(rows[0]?.n ?? 0);
}

function keysetClause(query: ListQuery, values: unknown[]): string | null {
  if (!query.cursor) return null;
  const c = decodeCursor(query.cursor);
  values.push(c.observedAt, c.id);
  return `(d.observed_at, d.id) ${query.order === "asc" ? ">" : "<"} ($${values.length - 1}::timestamptz, $${values.length}::bigint)`;
}

/**
 * The viewport's records from dead_letter_view_idx (index-only: every column used is in the index; one index
 * scan per search box, see buildWhereBranches), sorted, and only the page's rows fetched; null when the viewport
 * holds more than VIEWPORT_CAP of them. No ORDER BY inside the CTE, or the planner could prefer walking
 * observed_at with the viewport as a filter.
 */
async function sortedViewport(db: pg.Pool | pg.PoolClient, scope: RecordScope, query: ListQuery): Promise<Row[] | null> {
  const values: unknown[] = [];
  const order = query.order === "asc" ? "ASC" : "DESC";
  const { branches } = buildWhereBranches(scope, { ...query, kind: undefined }, values);
  const keyset = keysetClause(query, values);
  const union = selectBranches(
    "d.id, d.observed_at",
    branches.map((b) => (keyset ? `${b} AND ${keyset}` : b)),
  );
  const { rows } = await db.query<Row & { candidates: number }>(
    `WITH candidates AS MATERIALIZED (${union} LIMIT ${VIEWPORT_CAP + 1})
     SELECT ${COLUMNS}, (SELECT count(*) FROM candidates)::int AS candidates
     FROM (SELECT id FROM candidates c ORDER BY ${ORDER(order, "c")} LIMIT $${values.push(query.limit + 1)}) p
     JOIN dead_letter d ON d.id = p.id
     ORDER BY ${ORDER(order)}`,
    values,
  );
  return (rows[0]?.candidates ?? 0) > VIEWPORT_CAP ? null : rows;
}

/**
 * Walks the (filter, observed_at, id) indexes. The viewport test is written so the GiST index cannot serve it
 * (COALESCE is not an indexable operator): the observed_at indexes carry the box, so it costs no heap access.
 */
async function walkObserved(db: pg.Pool | pg.PoolClient, scope: RecordScope, query: ListQuery): Promise<Row[]> {
  const values: unknown[] = [];
  const p = (v: unknown) => `$${values.push(v)}`;
  const order = query.order === "asc" ? "ASC" : "DESC";
  const { bbox, q, ...rest } = query;
  const where = buildWhere(scope, rest, values);
  const clauses = [where.text, keysetClause(query, values)];
  if (bbox) clauses.push(`COALESCE(${viewportClause(bbox, p)}, false)`);
  const base = clauses.filter(Boolean).join(" AND ");
  const limit = p(query.limit + 1);
  const page = q
    ? searchPage(base, searchParts(q, p, "d", query.kind), order, limit, p(await commonLexemes(db)))
    : `SELECT d.id FROM dead_letter d WHERE ${base} ORDER BY ${ORDER(order)} LIMIT ${limit}`;
  const { rows } = await db.query<Row>(
    `WITH page AS MATERIALIZED (${page})
     SELECT ${COLUMNS} FROM page p JOIN dead_letter d ON d.id = p.id ORDER BY ${ORDER(order)}`,
    values,
  );
  return rows;
}

/**
 * A search's page as one ordered, bounded branch per condition, merged: each identifier's branch is an index's
 * walk in (observed_at, id) order, so a device with thousands of taps reads a page of them from
 * (device_id, observed_at), where one OR over all conditions read every tap of the device through a bitmap
 * and sorted them. UNION drops a record two conditions found. The payload's words take payloadBranch.
 */
function searchPage(
  base: string,
  parts: { identifiers: string[]; payload: PayloadMatch | null },
  order: string,
  limit: string,
  lexemesParam: string,
): string {
  const branches = parts.identifiers.map(
    (c) => `(SELECT d.id, d.observed_at FROM dead_letter d WHERE ${base} AND ${c} ORDER BY ${ORDER(order)} LIMIT ${limit})`,
  );
  if (parts.payload) branches.push(payloadBranch(base, parts.payload, order, limit, lexemesParam));
  return `SELECT s.id FROM (${branches.join("\n UNION ")}) s ORDER BY ${ORDER(order, "s")} LIMIT ${limit}`;
}

/** Matches a rare payload search may have for its set to be read whole from the GIN index and sorted. */
export const SEARCH_PROBE = 200;
/** Records a common term's page is looked for in, walking (observed_at, id), before its matches are read whole. */
export const SEARCH_WALK = 10_000;

/**
 * A payload search's page, whatever the term's frequency. The GIN index cannot return matches in observed_at order,
 * and the planner cannot tell a rare term from a common one (it multiplies the words' frequencies, so a phrase
 * whose words always come together is estimated far rarer than it is, and its plan reads every match from the
 * index, a heap fetch each, and sorts them). So the branch decides, each step a CTE that runs only when the ones before did not settle it:
 *  1. common: are all the words common, per the statistics (common-lexemes.ts, where.ts commonWordsSql)? Then
 *     straight to 3.
 *  2. probe (not common): up to SEARCH_PROBE + 1 matches from the index, in no order. A rare term (an id, a
 *     sensor, a typo) ends here: all its matches, sorted.
 *  3. walk (common, or the probe overflowed): SEARCH_WALK records in page order, testing the stored document
 *     (a few µs each): a term on 1% of the records or more fills its page here (~1,300 records at 8%).
 *  4. every_match (the walk came up short): every match from the index, sorted.
 */
function payloadBranch(base: string, payload: PayloadMatch, order: string, limit: string, lexemesParam: string): string {
  const cond = payload.condition;
  const walked = `((SELECT c FROM common) OR (SELECT count(*) FROM probe) > ${SEARCH_PROBE})`;
  return `(WITH common AS MATERIALIZED (SELECT ${commonWordsSql(payload.wordsParam, lexemesParam)} AS c),
     probe AS MATERIALIZED (
       SELECT d.id, d.observed_at FROM dead_letter d WHERE NOT (SELECT c FROM common) AND ${base} AND ${cond} LIMIT ${SEARCH_PROBE + 1}),
     walk AS MATERIALIZED (
       SELECT d.id, d.observed_at FROM (
         SELECT d.id, d.observed_at, d.search_doc, d.payload FROM dead_letter d WHERE ${walked} AND ${base}
         ORDER BY ${ORDER(order)} LIMIT ${SEARCH_WALK}) d
       WHERE ${cond} ORDER BY ${ORDER(order)} LIMIT ${limit}),
     every_match AS MATERIALIZED (
       SELECT d.id, d.observed_at FROM dead_letter d WHERE ${walked} AND (SELECT count(*) FROM walk) < ${limit} AND ${base} AND ${cond})
   SELECT id, observed_at FROM probe WHERE NOT ${walked}
   UNION SELECT id, observed_at FROM walk
   UNION SELECT id, observed_at FROM every_match)`;
}
