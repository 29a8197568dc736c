import "server-only";
import type pg from "pg";
import type { ListFilter } from "../filters";
import type { Extent } from "../contract/map";
import type { RecordScope } from "../../scope/record-scope";
import { buildWhere } from "./where";

// Where the spatial records matching the list's filters are: the box the list map fits to, so a filter on a
// source whose records are in Tokyo and Auckland does not leave the map on Europe showing none of them.

/** The union of the matching records' boxes (the filter's own bbox, the map view, is not applied). */
export async function matchingExtent(db: pg.Pool | pg.PoolClient, scope: RecordScope, filter: ListFilter): Promise<Extent> {
  const { bbox: _view, ...rest } = filter;
  const where = buildWhere(scope, rest);
  // A box is stored as (high corner),(low corner): [0] is north-east, [1] south-west. Records either side of the
  // antimeridian (Fiji at 178° and at -179.9°) span the whole world in longitudes -180..180 but a few degrees
  // in 0..360: both are computed and the narrower one is kept.
  const { rows } = await db.query<{
    w: number | null;
    s: number | null;
    e: number | null;
    n: number | null;
    w2: number | null;
    e2: number | null;
    count: number;
  }>(
    `SELECT min(lx) AS w, min(ly) AS s, max(hx) AS e, max(hy) AS n,
       min(lx + CASE WHEN lx < 0 THEN 360 ELSE 0 END) AS w2, max(hx + CASE WHEN lx < 0 THEN 360 ELSE 0 END) AS e2, count(*)::int AS count
     FROM (SELECT (d.bbox[1])[0] AS lx, (d.bbox[1])[1] AS ly, (d.bbox[0])[0] AS hx, (d.bbox[0])[1] AS hy
           FROM dead_letter d WHERE ${where.text} AND d.bbox IS NOT NULL) b`,
    where.values,
  );
  const r = rows[0];
  if (!r || r.count === 0 || r.w === null || r.s === null || r.e === null || r.n === null) return { bbox: null, count: 0 };
  if (r.w2 !== null && r.e2 !== null && r.e2 - r.w2 < r.e - r.w) {
    const shift = r.w2 >= 180 ? -360 : 0;
    return { bbox: [r.w2 + shift, r.s, r.e2 + shift, r.n], count: r.count };
  }
  return { bbox: [r.w, r.s, r.e, r.n], count: r.count };
}
