import pg from "pg";
import type { TestProject } from "vitest/node";
import { connectionFields } from "../../lib/db/pg-adapter";
import { applyMigrations } from "../../lib/db/migrate";
import { resolveDatabase } from "../../lib/db/resolve";

// Each test run gets its own freshly migrated database on the resolved server (DATABASE_URL, else the
// embedded PostgreSQL), dropped at the end: runs never see each other's rows.

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    serverUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const handle = await resolveDatabase();
  const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
  await admin.connect();
  const name = `redrive_test_${process.pid}_${Date.now().toString(36)}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(handle.url);
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  project.provide("databaseUrl", url.toString());
  project.provide("serverUrl", handle.url);

  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch((e: Error) => console.error(e.message));
    await admin.end();
    await handle.stop();
  };
}
