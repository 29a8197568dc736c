import pg from "pg";
import type { TestProject } from "vitest/node";
import { connectionFields } from "../../lib/db/pg-adapter";
import { applyMigrations } from "../../lib/db/migrate";
import { resolveDatabase } from "../../lib/db/resolve";

// Each test run migrates one template database on the resolved server (DATABASE_URL, else the embedded
// PostgreSQL); every test file then gets its own copy (CREATE DATABASE … TEMPLATE, a file copy, ~0.2 s), so no
// file sees another's rows, sequences or audit events. All of the run's databases are dropped at the end.

declare module "vitest" {
  export interface ProvidedContext {
    /** a migrated database shared by files that ask for it directly */
    databaseUrl: string;
    serverUrl: string;
    /** the migrated template; never connect to it (CREATE DATABASE … TEMPLATE needs it idle) */
    templateName: string;
    /** prefix of every database this run creates */
    databasePrefix: string;
  }
}

function urlFor(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function setup(project: TestProject) {
  const handle = await resolveDatabase();
  const admin = new pg.Client({ ...connectionFields(handle.url), database: "postgres" });
  // A restart of the server must not crash this process through an unhandled client error.
  admin.on("error", (e) => console.error(`[db] admin connection: ${e.message}`));
  await admin.connect();
  const prefix = `redrive_test_${process.pid}_${Date.now().toString(36)}`;
  const template = `${prefix}_tpl`;
  await admin.query(`CREATE DATABASE "${template}"`);
  await applyMigrations(urlFor(handle.url, template));
  // The schema engine's pools may linger a moment; a template must have no sessions to be copied.
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [template]);
  const shared = `${prefix}_shared`;
  await admin.query(`CREATE DATABASE "${shared}" TEMPLATE "${template}"`);
  project.provide("databaseUrl", urlFor(handle.url, shared));
  project.provide("serverUrl", handle.url);
  project.provide("templateName", template);
  project.provide("databasePrefix", prefix);

  return async () => {
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [`${prefix}%`]);
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch((e: Error) => console.error(e.message));
    }
    await admin.end();
    await handle.stop();
  };
}
