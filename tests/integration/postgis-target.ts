import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { connectionFields } from "../../lib/db/pg-adapter";

// A PostGIS target database for a test file: created on the test server (so the run's teardown drops it with the
// others, by its prefix), with the extension and a feature table. Debian's postgresql-15-postgis-3 provides the
// extension; .ci/run installs it where it is missing, so on CI a missing PostGIS fails the tests instead of
// skipping them.

export const POSTGIS_CONTROL = "/usr/share/postgresql/15/extension/postgis.control";

/** Why the PostGIS tests cannot run here, or null. On CI nothing is skipped. */
export function postgisUnavailable(): string | null {
  if (process.env.CI) return null;
  return existsSync(POSTGIS_CONTROL)
    ? null
    : `PostGIS is not installed on this machine (${POSTGIS_CONTROL} is missing; apt-get install postgresql-15-postgis-3, as .ci/run does)`;
}

export interface PostgisTarget {
  url: string;
  pool: pg.Pool;
  name: string;
}

export async function createPostgisTarget(opts: { postgis?: boolean } = {}): Promise<PostgisTarget> {
  const server = inject("serverUrl");
  const name = `${inject("databasePrefix")}_gis_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ ...connectionFields(server), database: "postgres" });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  if (opts.postgis !== false) await pool.query("CREATE EXTENSION postgis");
  return { url: url.toString(), pool, name };
}

/** The feature table the tests write to: the shape, in its own schema. */
export async function createFeatureTable(pool: pg.Pool, table = "gis.features", geometryType = "Geometry"): Promise<void> {
  const schema = table.includes(".") ? table.split(".")[0] : null;
  if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await pool.query(
    `CREATE TABLE ${table} (id text PRIMARY KEY, geom geometry(${geometryType}, 4326) NOT NULL, observed_at timestamptz NOT NULL, props jsonb)`,
  );
}

export const sinkFor = (url: string, table = "gis.features") => ({
  type: "postgis" as const,
  url,
  table,
  idColumn: "id",
  geometryColumn: "geom",
  observedAtColumn: "observed_at",
  propertiesColumn: "props",
});
