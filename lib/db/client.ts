import "server-only";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client";
import { withSessionSetup } from "./session";

// One pg pool per process, shared by Prisma (through the driver adapter) and by the raw SQL of hot paths
// (ingest, queue claims), so both see the same connection limit.

export interface Db {
  url: string;
  pool: pg.Pool;
  prisma: PrismaClient;
}

const globalForDb = globalThis as unknown as { __redriveDb?: Db };

export function createDb(url: string, max = 20): Db {
  const pool = new pg.Pool(withSessionSetup({ connectionString: url, max, idleTimeoutMillis: 30_000 }));
  // An idle client's connection can drop (database restart); without a listener that error would crash us.
  pool.on("error", (err) => console.error(`[db] idle client error: ${err.message}`));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return { url, pool, prisma };
}

/** The process-wide database, connected to DATABASE_URL (set by the launcher or the CLI's resolution). */
export function getDb(): Db {
  if (globalForDb.__redriveDb) return globalForDb.__redriveDb;
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start Redrive with `npm start` or set it explicitly");
  globalForDb.__redriveDb = createDb(url);
  return globalForDb.__redriveDb;
}

export async function closeDb(): Promise<void> {
  const db = globalForDb.__redriveDb;
  globalForDb.__redriveDb = undefined;
  if (db) {
    await db.prisma.$disconnect();
    await db.pool.end();
  }
}
