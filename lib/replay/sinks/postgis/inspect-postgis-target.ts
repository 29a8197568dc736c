import "server-only";
import pg from "pg";
import { postgisConnection } from "./postgis-connection";
import { parseTableName, type PostgisTarget } from "./postgis-sink-schema";

// What a PostGIS sink's target database holds, read from its catalogs: the PostGIS version, the table and its
// columns, whether Redrive's key table is there, and what in the configuration cannot work. Batch creation refuses
// a batch with any problem (422 naming the field), `redrive sink check` prints the whole report, and the sink reads
// the column types it casts to from it.

export const KEY_TABLE = "redrive_applied_key";

export interface TargetColumn {
  name: string;
  /** format_type(): SQL text of the type, e.g. "bigint", "geometry(MultiPolygon,4326)" */
  type: string;
  notNull: boolean;
}

export interface TargetReport {
  /** PostGIS's version in that database (postgis_lib_version), null when the extension is not installed */
  postgis: string | null;
  /** the GEOS PostGIS was built with, which is what validates the geometries there */
  geos: string | null;
  /** the table as resolved (schema always known), null when there is none */
  table: { schema: string; name: string } | null;
  columns: TargetColumn[];
  /** the configured columns' types (null when that column is missing or not configured) */
  types: { id: string | null; observedAt: string | null; properties: string | null };
  keyTable: { exists: boolean; rows: number | null };
  problems: { path: string; message: string }[];
  /** what a batch will do that the team may not expect (how times are written) */
  notes: { path: string; message: string }[];
}

/** A client for a check or inspection: short timeouts, so a wrong host answers within seconds. */
export function targetClient(url: string, timeoutMs = 5000): pg.Client {
  return new pg.Client({
    ...postgisConnection(url),
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs * 2,
    application_name: "redrive-postgis-check",
  });
}

/** `schema.table` quoted for SQL, each part escaped (pg's escapeIdentifier). */
export function qualifiedName(schema: string, table: string): string {
  return `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`;
}

/** By pg_type name, so any precision passes: Prisma's DateTime is `timestamptz(6)`, formatted "timestamp(6) with time zone". */
const TIME_TYPES = new Set(["timestamptz", "timestamp"]);
const JSON_TYPES = new Set(["jsonb", "json"]);

/** `countKeys`: also count the key table's rows (a full scan: for the check command, not for every batch). */
export async function inspectPostgisTarget(
  db: pg.ClientBase,
  target: PostgisTarget,
  opts: { countKeys?: boolean } = {},
): Promise<TargetReport> {
  const problems: TargetReport["problems"] = [];
  const report: TargetReport = {
    postgis: null,
    geos: null,
    table: null,
    columns: [],
    types: { id: null, observedAt: null, properties: null },
    keyTable: { exists: false, rows: null },
    problems,
    notes: [],
  };
  const ext = await db.query<{ installed: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis') AS installed`);
  if (ext.rows[0]?.installed) {
    const v = await db.query<{ lib: string; geos: string }>(`SELECT postgis_lib_version() AS lib, postgis_geos_version() AS geos`);
    report.postgis = v.rows[0]?.lib ?? null;
    report.geos = v.rows[0]?.geos ?? null;
  } else {
    const db_ = await db.query<{ name: string }>(`SELECT current_database() AS name`);
    problems.push({
      path: "sink.url",
      message: `database ${db_.rows[0]?.name ?? "?"} has no PostGIS (CREATE EXTENSION postgis there, or point the sink at one that has it)`,
    });
  }

  const name = parseTableName(target.table);
  if (!name) {
    problems.push({ path: "sink.table", message: "is not a table name" });
    return report;
  }
  const quoted = name.schema === null ? pg.escapeIdentifier(name.table) : qualifiedName(name.schema, name.table);
  const rel = await db.query<{ oid: number; schema: string; name: string; kind: string; writable: boolean }>(
    `SELECT c.oid::int AS oid, n.nspname AS schema, c.relname AS name, c.relkind::text AS kind,
       has_table_privilege(c.oid, 'INSERT') AND has_table_privilege(c.oid, 'UPDATE') AS writable
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`,
    [quoted],
  );
  const table = rel.rows[0];
  if (!table || (table.kind !== "r" && table.kind !== "p")) {
    problems.push({
      path: "sink.table",
      message: `no table ${quoted} in that database${table ? ` (it is not a table: relkind ${table.kind})` : ""}`,
    });
    return report;
  }
  report.table = { schema: table.schema, name: table.name };
  if (!table.writable) problems.push({ path: "sink.table", message: `the sink's user may not INSERT and UPDATE ${quoted}` });

  const cols = await db.query<{ name: string; type: string; typname: string; not_null: boolean; attnum: number; srid: number | null }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, t.typname, a.attnotnull AS not_null, a.attnum::int AS attnum,
       ${report.postgis ? "CASE WHEN t.typname = 'geometry' THEN postgis_typmod_srid(a.atttypmod) END" : "NULL::int"} AS srid
     FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
     WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [table.oid],
  );
  report.columns = cols.rows.map((c) => ({ name: c.name, type: c.type, notNull: c.not_null }));
  const col = (n: string) => cols.rows.find((c) => c.name === n);

  const id = col(target.idColumn);
  if (!id) problems.push({ path: "sink.idColumn", message: `${quoted} has no column ${pg.escapeIdentifier(target.idColumn)}` });
  else {
    report.types.id = id.type;
    const unique = await db.query<{ ok: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = $1 AND i.indisunique AND i.indnatts = 1 AND i.indkey[0] = $2
         AND i.indpred IS NULL AND i.indexprs IS NULL) AS ok`,
      [table.oid, id.attnum],
    );
    if (!unique.rows[0]?.ok) {
      problems.push({
        path: "sink.idColumn",
        message: `${pg.escapeIdentifier(target.idColumn)} needs a primary key or unique index of its own (the upsert is ON CONFLICT on it)`,
      });
    }
  }

  const geom = col(target.geometryColumn);
  if (!geom)
    problems.push({ path: "sink.geometryColumn", message: `${quoted} has no column ${pg.escapeIdentifier(target.geometryColumn)}` });
  else if (geom.typname !== "geometry") {
    problems.push({
      path: "sink.geometryColumn",
      message: `${pg.escapeIdentifier(target.geometryColumn)} is ${geom.type}, not a PostGIS geometry`,
    });
  } else if (geom.srid !== null && geom.srid !== 0 && geom.srid !== target.srid) {
    problems.push({
      path: "sink.srid",
      message: `is ${target.srid}, but ${pg.escapeIdentifier(target.geometryColumn)} holds SRID ${geom.srid}`,
    });
  }

  const observed = col(target.observedAtColumn);
  if (!observed)
    problems.push({ path: "sink.observedAtColumn", message: `${quoted} has no column ${pg.escapeIdentifier(target.observedAtColumn)}` });
  else if (!TIME_TYPES.has(observed.typname)) {
    problems.push({
      path: "sink.observedAtColumn",
      message: `${pg.escapeIdentifier(target.observedAtColumn)} is ${observed.type}, not a timestamp`,
    });
  } else {
    report.types.observedAt = observed.type;
    // The sink's sessions run with TimeZone=UTC (target-pools.ts): a column without a time zone gets UTC wall time.
    report.notes.push({
      path: "sink.observedAtColumn",
      message:
        observed.typname === "timestamp"
          ? `${pg.escapeIdentifier(target.observedAtColumn)} is ${observed.type}: observation times are written in UTC`
          : `${pg.escapeIdentifier(target.observedAtColumn)} is ${observed.type}: observation times keep their instant`,
    });
  }

  if (target.propertiesColumn !== undefined) {
    const props = col(target.propertiesColumn);
    if (!props)
      problems.push({ path: "sink.propertiesColumn", message: `${quoted} has no column ${pg.escapeIdentifier(target.propertiesColumn)}` });
    else if (!JSON_TYPES.has(props.type)) {
      problems.push({
        path: "sink.propertiesColumn",
        message: `${pg.escapeIdentifier(target.propertiesColumn)} is ${props.type}, not jsonb or json`,
      });
    } else report.types.properties = props.type;
  }

  const keys = await db.query<{ exists: boolean; may_create: boolean; may_insert: boolean | null }>(
    `SELECT to_regclass($1) IS NOT NULL AS exists, has_schema_privilege($2, 'CREATE') AS may_create,
       CASE WHEN to_regclass($1) IS NOT NULL THEN has_table_privilege(to_regclass($1), 'INSERT') END AS may_insert`,
    [qualifiedName(table.schema, KEY_TABLE), table.schema],
  );
  const k = keys.rows[0];
  report.keyTable.exists = k?.exists ?? false;
  if (k?.exists && opts.countKeys) {
    const n = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${qualifiedName(table.schema, KEY_TABLE)}`);
    report.keyTable.rows = n.rows[0]?.n ?? null;
  }
  if (k?.exists) {
    if (!k.may_insert)
      problems.push({ path: "sink.table", message: `the sink's user may not INSERT into ${qualifiedName(table.schema, KEY_TABLE)}` });
  } else if (!k?.may_create) {
    problems.push({
      path: "sink.table",
      message: `${KEY_TABLE} does not exist in schema ${pg.escapeIdentifier(table.schema)} and the sink's user may not create it there`,
    });
  }
  return report;
}
