import "server-only";
import type pg from "pg";
import type { ListFilter } from "../filters";
import type { MapPoints } from "../contract/map";
import type { RecordScope } from "../../scope/record-scope";
import { buildWhere, buildWhereBranches, selectBranches } from "./where";

// Points for the list's map (GET /api/dead-letters/map-points): the centre of every matching record's box in the
// map's view, or, when there are many, one point per occupied grid cell (its record count and mean position)
// for MapLibre to cluster further. The response stays a few thousand features whatever the table holds:
//   ≤ POINT_LIMIT records in view       → one feature per record (clicking one opens it);
//   ≤ GRID_CAP                          → grid cells, exact counts, index-only over dead_letter_view_idx;
//   more                                → grid cells from a repeatable page sample, counts scaled (approximate).

export const POINT_LIMIT = 2_000;
export const GRID_CAP = 10_000;
const SAMPLE_ROWS = 30_000;

/** Grid cell size in degrees for a zoom: ~40 px cells on a 512 px-per-world-at-zoom-0 map. */
export function cellSize(zoom: number): number {
  return (360 * 40) / (512 * 2 ** Math.max(0, Math.min(22, zoom)));
}

// Boxes across the antimeridian are stored unwrapped (stored-box.ts: Fiji's is 178..182), so their centre can lie
// past 180 (181 is -179 on the map).
const CX = `(CASE WHEN (center(d.bbox))[0] > 180 THEN (center(d.bbox))[0] - 360 ELSE (center(d.bbox))[0] END)`;
const CY = `(center(d.bbox))[1]`;

interface PointRow {
  id: string | null;
  x: number;
  y: number;
  n: string;
}

function toPoints(rows: PointRow[], mode: MapPoints["mode"], total: number, scale = 1): MapPoints {
  return {
    type: "FeatureCollection",
    mode,
    total,
    exact: scale === 1,
    features: rows.map((r) => ({
      type: "Feature",
      geometry: { type: "Point", coordinates: [Math.round(r.x * 1e6) / 1e6, Math.round(r.y * 1e6) / 1e6] },
      properties: r.id ? { n: 1, id: r.id } : { n: Math.max(1, Math.round(Number(r.n) * scale)) },
    })),
  };
}

export async function mapPoints(db: pg.Pool | pg.PoolClient, scope: RecordScope, filter: ListFilter, zoom: number): Promise<MapPoints> {
  if (filter.kind && !filter.kind.includes("spatial")) return toPoints([], "points", 0);
  // kind is implied by having a box (only spatial records have one) and is not in the covering index.
  const { branches, values } = buildWhereBranches(scope, { ...filter, kind: undefined, bbox: filter.bbox ?? [-540, -90, 540, 90] });
  const cell = cellSize(zoom);
  const { rows } = await db.query<PointRow & { total: number }>(
    `WITH inview AS MATERIALIZED (${selectBranches(`d.id, ${CX} AS x, ${CY} AS y`, branches)} LIMIT ${GRID_CAP + 1}),
     total AS (SELECT count(*)::int AS n FROM inview)
     SELECT NULL::text AS id, avg(x) AS x, avg(y) AS y, count(*)::text AS n, (SELECT n FROM total) AS total
     FROM inview WHERE (SELECT n FROM total) > ${POINT_LIMIT}
     GROUP BY floor(x / ${cell}), floor(y / ${cell})
     UNION ALL
     SELECT id::text, x, y, '1', (SELECT n FROM total) FROM inview WHERE (SELECT n FROM total) <= ${POINT_LIMIT}`,
    values,
  );
  const total = rows[0]?.total ?? 0;
  if (total <= POINT_LIMIT) return toPoints(rows, "points", total);
  if (total <= GRID_CAP) return toPoints(rows, "grid", total);
  return sampledGrid(db, scope, filter, cell);
}

async function sampledGrid(db: pg.Pool | pg.PoolClient, scope: RecordScope, filter: ListFilter, cell: number): Promise<MapPoints> {
  const est = await db.query<{ n: number }>("SELECT GREATEST(reltuples, 1)::float8 AS n FROM pg_class WHERE oid = 'dead_letter'::regclass");
  const percent = Math.min(100, Math.max(0.1, (100 * SAMPLE_ROWS) / (est.rows[0]?.n ?? SAMPLE_ROWS)));
  const where = buildWhere(scope, { ...filter, kind: undefined });
  const { rows } = await db.query<PointRow>(
    `SELECT NULL::text AS id, avg(x) AS x, avg(y) AS y, count(*)::text AS n
     FROM (SELECT ${CX} AS x, ${CY} AS y FROM dead_letter d TABLESAMPLE SYSTEM (${percent.toFixed(3)}) REPEATABLE (42)
           WHERE ${where.text} AND d.bbox IS NOT NULL) s
     GROUP BY floor(x / ${cell}), floor(y / ${cell})`,
    where.values,
  );
  const scale = 100 / percent;
  const points = toPoints(rows, "grid", 0, scale);
  points.total = points.features.reduce((sum, f) => sum + f.properties.n, 0);
  return points;
}
