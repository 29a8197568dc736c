import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { createDb, type Db } from "../../lib/db/client";
import { connectionFields } from "../../lib/db/pg-adapter";

/**
 * A fresh database for this test file, copied from the run's migrated template (see global-setup.ts), and
 * made the process-wide DATABASE_URL so modules using getDb() see it too. `truncate` is kept for files that
 * reset tables between their own tests.
 */
export async function testDb(opts: { truncate?: string[] } = {}): Promise<Db> {
  const server = inject("serverUrl");
  const name = `${inject("databasePrefix")}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ ...connectionFields(server), database: "postgres" });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject("templateName")}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  const db = createDb(url.toString(), 8);
  if (opts.truncate?.length) {
    await db.pool.query(`TRUNCATE ${opts.truncate.map((t) => `"${t}"`).join(", ")} RESTART IDENTITY CASCADE`);
  }
  return db;
}
