import type pg from "pg";
import type { ListFilter } from "./filters";
import { buildWhere } from "./where";

// Where the spatial records matching the list's filters are: the box the list map fits to, so a filter on a
// source whose records are in Tokyo and Auckland does not leave the map on Europe showing none of them.

export interface Extent {
  /** [west, south, east, north] in EPSG:4326; east may exceed 180 where boxes cross the antimeridian */
  bbox: [number, number, number, number] | null;
  /** spatial records with a box among the matches */
  count: number;
}

/** The union of the matching records' boxes (the filter's own bbox, the map view, is not applied). */
export async function matchingExtent(db: pg.Pool | pg.PoolClient, filter: ListFilter): Promise<Extent> {
  const { bbox: _view, ...rest } = filter;
  const where = buildWhere(rest);
  // A box is stored as (high corner),(low corner): [0] is north-east, [1] south-west.
  const { rows } = await db.query<{ w: number | null; s: number | null; e: number | null; n: number | null; count: number }>(
    `SELECT min((d.bbox[1])[0]) AS w, min((d.bbox[1])[1]) AS s, max((d.bbox[0])[0]) AS e, max((d.bbox[0])[1]) AS n, count(*)::int AS count
     FROM dead_letter d WHERE ${where.text} AND d.bbox IS NOT NULL`,
    where.values,
  );
  const r = rows[0];
  if (!r || r.count === 0 || r.w === null || r.s === null || r.e === null || r.n === null) return { bbox: null, count: 0 };
  return { bbox: [r.w, r.s, r.e, r.n], count: r.count };
}
