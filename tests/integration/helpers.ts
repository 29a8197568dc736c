import { inject } from "vitest";
import { createDb, type Db } from "../../lib/db/client";

/** A connection to this run's database; truncates the given tables so each test file starts clean. */
export async function testDb(opts: { truncate?: string[] } = {}): Promise<Db> {
  const url = inject("databaseUrl");
  process.env.DATABASE_URL = url;
  const db = createDb(url, 8);
  if (opts.truncate?.length) {
    await db.pool.query(`TRUNCATE ${opts.truncate.map((t) => `"${t}"`).join(", ")} RESTART IDENTITY CASCADE`);
  }
  return db;
}
