import "server-only";
import pg from "pg";
import type { JsonValue } from "../../../json/value";
import type { PostgisTarget } from "./postgis-sink-schema";

// The one statement that applies a page to a PostGIS table. Everything the page does happens in it, so it commits
// (or fails) as one transaction in the target:
//   1. every geometry parsed (ST_GeomFromGeoJSON, SRID set) and checked by PostGIS (ST_IsValid): an invalid one —
//      Redrive's repair and the database's GEOS disagree — goes no further, and its reason comes back;
//   2. the valid items' keys go into the key table (primary key = the stored idempotency key): a key already there
//      means an earlier page (a crash before Redrive recorded it, another batch) applied it: deduped;
//   3. per feature id the newest new reading is upserted, and only over an older one
//      (ON CONFLICT … WHERE t.observed < EXCLUDED.observed): a stale replay never overwrites fresher state.
// Values are parameters (one JSON array, read by jsonb_to_recordset); names are quoted with pg's escapeIdentifier
// and the casts are format_type() text read from the target's catalog, never user input.

export interface PageRow {
  ord: number;
  key: string;
  fid: string;
  observed: string;
  props: JsonValue | null;
  /** the geometry as GeoJSON text */
  geom: string;
}

export interface ResolvedTarget extends PostgisTarget {
  schema: string;
  tableName: string;
  keyTable: string;
  types: { id: string; observedAt: string; properties: string | null };
}

export interface PageAnswer {
  ord: number;
  valid: boolean;
  reason: string | null;
  fresh: boolean;
}

/** The feature's id: its GeoJSON id, else the configured property. null: it has neither. */
export function featureId(payload: JsonValue, idProperty: string | undefined): string | null {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return null;
  const usable = (v: JsonValue | undefined) => (typeof v === "string" && v !== "") || (typeof v === "number" && Number.isFinite(v));
  if (usable(payload.id)) return String(payload.id);
  const props = payload.properties;
  if (idProperty !== undefined && typeof props === "object" && props !== null && !Array.isArray(props) && usable(props[idProperty])) {
    return String(props[idProperty]);
  }
  return null;
}

export function pageStatement(t: ResolvedTarget): string {
  const q = pg.escapeIdentifier;
  const table = `${q(t.schema)}.${q(t.tableName)}`;
  const keys = `${q(t.schema)}.${q(t.keyTable)}`;
  const cols = [q(t.idColumn), q(t.geometryColumn), q(t.observedAtColumn), ...(t.propertiesColumn ? [q(t.propertiesColumn)] : [])];
  const values = [
    `w.fid::${t.types.id}`,
    "w.geom",
    `w.observed::${t.types.observedAt}`,
    ...(t.propertiesColumn && t.types.properties ? [`w.props::${t.types.properties}`] : []),
  ];
  const sets = cols.slice(1).map((c) => `${c} = EXCLUDED.${c}`);
  return `WITH input AS (
  SELECT r.ord, r.key, r.fid, r.observed, r.props, ST_SetSRID(ST_GeomFromGeoJSON(r.geom), $2::int) AS geom,
    row_number() OVER (PARTITION BY r.key ORDER BY r.ord) = 1 AS first
  FROM jsonb_to_recordset($1::jsonb) AS r(ord int, key text, fid text, observed timestamptz, props jsonb, geom text)
), checked AS (
  SELECT i.*, ST_IsValid(i.geom) AS valid FROM input i
), fresh AS (
  INSERT INTO ${keys} (idempotency_key, target_table, feature_id, observed_at)
  SELECT c.key, $3, c.fid, c.observed FROM checked c WHERE c.valid AND c.first ORDER BY c.key
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING idempotency_key
), winners AS (
  SELECT DISTINCT ON (c.fid) c.* FROM checked c JOIN fresh f ON f.idempotency_key = c.key AND c.first
  ORDER BY c.fid, c.observed DESC, c.ord DESC
), upserted AS (
  INSERT INTO ${table} AS t (${cols.join(", ")})
  SELECT ${values.join(", ")} FROM winners w ORDER BY w.fid
  ON CONFLICT (${q(t.idColumn)}) DO UPDATE SET ${sets.join(", ")}
  WHERE t.${q(t.observedAtColumn)} IS NULL OR t.${q(t.observedAtColumn)} < EXCLUDED.${q(t.observedAtColumn)}
  RETURNING 1
)
SELECT c.ord, c.valid, CASE WHEN NOT c.valid THEN ST_IsValidReason(c.geom) END AS reason,
  (c.first AND f.idempotency_key IS NOT NULL) AS fresh
FROM checked c LEFT JOIN fresh f ON f.idempotency_key = c.key
ORDER BY c.ord`;
}

export function keyTableStatement(schema: string, keyTable: string): string {
  const q = pg.escapeIdentifier;
  return `CREATE TABLE IF NOT EXISTS ${q(schema)}.${q(keyTable)} (
  idempotency_key text PRIMARY KEY,
  target_table text NOT NULL,
  feature_id text NOT NULL,
  observed_at timestamptz NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;
}
