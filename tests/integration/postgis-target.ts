import { randomBytes } from "node:crypto";
import type pg from "pg";
import { inject } from "vitest";
import { createPostgisDatabase, findPostgisServer } from "../support/postgis-server";

// A PostGIS target database for a test file, on the first server that offers PostGIS (tests/support/postgis-server.ts:
// the test server if it has it, else the machine's PostgreSQL 15 with Debian's postgresql-15-postgis-3, which .ci/run
// installs where it is missing). Where no server has PostGIS the tests skip with the reason — except on CI, where
// they run and fail with it.

/** The server to use, or why there is none (then the file's tests skip, outside CI). Call at the top of a file. */
export async function postgisServer(): Promise<{ url: string; skip: null } | { url: null; skip: string | null; reason: string }> {
  const found = await findPostgisServer(inject("serverUrl"));
  if ("url" in found) return { url: found.url, skip: null };
  if (!process.env.CI) console.warn(`[postgis] skipped: ${found.reason}`);
  return { url: null, skip: process.env.CI ? null : found.reason, reason: found.reason };
}

export interface PostgisTarget {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function createPostgisTarget(
  server: { url: string | null; reason?: string },
  opts: { postgis?: boolean } = {},
): Promise<PostgisTarget> {
  if (!server.url) throw new Error(server.reason ?? "no PostgreSQL with PostGIS");
  return createPostgisDatabase(server.url, `${inject("databasePrefix")}_gis_${randomBytes(4).toString("hex")}`, opts);
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
