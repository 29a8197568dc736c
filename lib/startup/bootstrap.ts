import "server-only";
import { closeDb, createDb, type Db } from "../db/client";
import { migrationStatus } from "../db/migration-files";
import { redactUrlSecrets } from "../masking/url";
import { resolveDatabase } from "../db/resolve";
import { sealStoredSecrets } from "./seal-stored-secrets";

/**
 * Shared start-up of every long-running entry point (server launcher, CLI, worker): find the database,
 * bring its schema up to date, optionally seed an empty one.
 */
export async function bootstrap(opts: {
  log: (msg: string) => void;
  seedIfEmpty?: boolean;
  migrate?: boolean;
  /** the embedded server this process started stopped without being asked (killed, crashed) */
  onDatabaseExit?: (why: string) => void;
}): Promise<{ db: Db; stop: () => Promise<void> }> {
  const handle = await resolveDatabase((m) => {
    if (/initialising|attaching|stopping|failed/.test(m)) opts.log(m);
  }, opts.onDatabaseExit);
  process.env.DATABASE_URL = handle.url;
  process.env.REDRIVE_DB_MODE = handle.embedded ? "embedded" : "external";
  const db = createDb(handle.url);
  // One plain connection first: a wrong DATABASE_URL (no such database, server down, bad password) is one line
  // naming it, not a schema-engine stack trace from the migration check below.
  await db.pool.query("SELECT 1").catch(async (err: unknown) => {
    await db.pool.end().catch(() => {});
    await handle.stop();
    // Userinfo and every query value hidden: node-postgres also reads ?password=… from the URL.
    const where = handle.embedded ? "the embedded PostgreSQL" : `DATABASE_URL (${redactUrlSecrets(handle.url)})`;
    throw new Error(`cannot connect to ${where}: ${err instanceof Error ? err.message : String(err)}`);
  });
  if (opts.migrate !== false) {
    // Up to date (the usual case) is read from _prisma_migrations in one query; the schema engine, which takes a
    // second or more to load and diagnose, starts only when a migration is pending or failed (it reports those).
    const status = await migrationStatus(async (sql) => (await db.pool.query(sql)).rows);
    if (status.unknown.length > 0) {
      opts.log(
        `warning: the database has migrations this version does not know (${status.unknown.join(", ")}): a newer Redrive migrated it; run that version, or expect errors`,
      );
    }
    if (status.pending.length > 0 || status.failed.length > 0) {
      const { applyMigrations } = await import("../db/migrate");
      const applied = await applyMigrations(handle.url);
      if (applied.length) opts.log(`applied migrations: ${applied.join(", ")}`);
    }
  }
  if (opts.migrate !== false) await sealStoredSecrets(db.pool, opts.log);
  if (opts.seedIfEmpty) {
    const { seedIfEmpty } = await import("../seed/seed-if-empty");
    await seedIfEmpty(db, opts.log);
  }
  return {
    db,
    stop: async () => {
      await db.prisma.$disconnect().catch(() => {});
      await db.pool.end().catch(() => {});
      // The process-wide pool too (auth and audit helpers open it through getDb()): left open, its idle
      // connections were cut by the embedded server's shutdown and each printed "[db] idle client error".
      await closeDb().catch(() => {});
      await handle.stop();
    },
  };
}
