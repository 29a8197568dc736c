import { createDb, type Db } from "./client";
import { applyMigrations } from "./migrate";
import { resolveDatabase } from "./resolve";

/**
 * Shared start-up of every long-running entry point (server launcher, CLI, worker): find the database,
 * bring its schema up to date, optionally seed an empty one.
 */
export async function bootstrap(opts: {
  log: (msg: string) => void;
  seedIfEmpty?: boolean;
  migrate?: boolean;
}): Promise<{ db: Db; stop: () => Promise<void> }> {
  const handle = await resolveDatabase((m) => {
    if (/initialising|attaching|stopping|failed/.test(m)) opts.log(m);
  });
  process.env.DATABASE_URL = handle.url;
  process.env.REDRIVE_DB_MODE = handle.embedded ? "embedded" : "external";
  if (opts.migrate !== false) {
    const applied = await applyMigrations(handle.url);
    if (applied.length) opts.log(`applied migrations: ${applied.join(", ")}`);
  }
  const db = createDb(handle.url);
  if (opts.seedIfEmpty) {
    const { seedIfEmpty } = await import("../seed/seed-if-empty");
    await seedIfEmpty(db, opts.log);
  }
  return {
    db,
    stop: async () => {
      await db.prisma.$disconnect().catch(() => {});
      await db.pool.end().catch(() => {});
      await handle.stop();
    },
  };
}
