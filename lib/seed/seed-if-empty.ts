import "server-only";
import type { Db } from "../db/client";
import { getEnv } from "../env";
import { seedDemo } from "./seed";

/** `npm start` on a fresh database: demo data and demo accounts, so the dashboard has something to show. */
export async function seedIfEmpty(db: Db, log: (msg: string) => void): Promise<void> {
  const { rows } = await db.pool.query<{ any_rows: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM dead_letter) OR EXISTS (SELECT 1 FROM "user") AS any_rows`,
  );
  if (rows[0]?.any_rows) return;
  const count = getEnv().REDRIVE_SEED_COUNT;
  log(`empty database: seeding ${count} demo records (REDRIVE_SEED_COUNT) and the demo accounts`);
  await seedDemo(db, { count, seed: 42, log });
}
