import "server-only";
import type pg from "pg";
import type { Arrivals } from "../contract/list";
import type { ListFilter } from "../filters";
import type { RecordScope } from "../../scope/record-scope";
import { buildWhere, viewportClause } from "./where";

// What arrived since the list was loaded, for its "N new — show" banner: the records under the same filter with
// an id above the watermark the list was loaded at. Ids are handed out in insertion order, so the walk is a range
// of the primary key over the new rows only, never the filter's whole match (1M rows and more), and it stops at
// ARRIVALS_CAP: the banner says "999+ new" beyond.

export const ARRIVALS_CAP = 999;

export async function countArrivals(
  db: pg.Pool | pg.PoolClient,
  scope: RecordScope,
  filter: ListFilter,
  after: string | undefined,
): Promise<Arrivals> {
  const { rows: top } = await db.query<{ id: string | null }>(`SELECT max(id)::text AS id FROM dead_letter`);
  const watermark = top[0]?.id ?? "0";
  if (after === undefined) return { watermark, count: 0, cap: ARRIVALS_CAP, capped: false };
  const values: unknown[] = [];
  const { bbox, ...rest } = filter;
  const clauses = [
    buildWhere(scope, rest, values).text,
    `d.id > $${values.push(after)}::bigint`,
    `d.id <= $${values.push(watermark)}::bigint`,
  ];
  if (bbox) clauses.push(`COALESCE(${viewportClause(bbox, (v) => `$${values.push(v)}`)}, false)`);
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM dead_letter d WHERE ${clauses.join(" AND ")} LIMIT ${ARRIVALS_CAP + 1}) s`,
    values,
  );
  const n = rows[0]?.n ?? 0;
  return { watermark, count: Math.min(n, ARRIVALS_CAP), cap: ARRIVALS_CAP, capped: n > ARRIVALS_CAP };
}
