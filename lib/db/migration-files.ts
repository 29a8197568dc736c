import "server-only";
import { readFile, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { MigrationDirectory, MigrationList } from "@prisma/schema-engine-wasm";

// Reading prisma/ from disk, apart from the engine itself so the web server's health check can list
// migrations without bundling the WebAssembly engine.

/** The project's prisma/: under REDRIVE_ROOT (the CLI sets it to the package root), else the current directory. */
export const PRISMA_DIR = resolve(process.env.REDRIVE_ROOT ?? process.cwd(), "prisma");
export const SCHEMA_PATH = join(PRISMA_DIR, "schema.prisma");
export const MIGRATIONS_DIR = join(PRISMA_DIR, "migrations");

export async function readSchema(): Promise<{ path: string; content: string }> {
  return { path: SCHEMA_PATH, content: await readFile(SCHEMA_PATH, "utf8") };
}

/** The migrations on disk by name (their folders), in order: one directory read, no file contents. */
export async function migrationNames(dir = MIGRATIONS_DIR): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

export async function readMigrationList(dir = MIGRATIONS_DIR): Promise<MigrationList> {
  const dirs = await migrationNames(dir);
  const migrationDirectories: MigrationDirectory[] = await Promise.all(
    dirs.map(async (name) => {
      const file = join(dir, name, "migration.sql");
      const content = await readFile(file, "utf8").then(
        (value) => ({ tag: "ok" as const, value }),
        (err: Error) => ({ tag: "error" as const, value: err.message }),
      );
      return { path: name, migrationFile: { path: "migration.sql", content } };
    }),
  );
  const lockPath = join(dir, "migration_lock.toml");
  const lockContent = await readFile(lockPath, "utf8").catch(() => null);
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}

/**
 * The advisory lock (two int keys: "RED4", 0) a process holds for the whole of applying migrations (migrate.ts).
 * Held, an unfinished migration is running; not held, it failed.
 */
export const MIGRATE_LOCK: [number, number] = [0x5245_4434, 0];

/**
 * Migration state for /api/health: applied vs on disk, whether any of this code's failed or is being applied, and
 * `unknown`: applied ones this code does not have (the database was migrated by a newer Redrive). A newer release's
 * migration that is running or failed is not this code's concern: it expanded the schema at most.
 */
export async function migrationStatus(
  query: (sql: string) => Promise<{ migration_name: string; finished_at: Date | null; rolled_back_at: Date | null; migrating: boolean }[]>,
  dir = MIGRATIONS_DIR,
): Promise<{ applied: number; pending: string[]; failed: string[]; running: string[]; unknown: string[] }> {
  // Only the names: health and readiness probes call this every few seconds on every server.
  const onDisk = await migrationNames(dir);
  const rows = await query(
    `SELECT migration_name, finished_at, rolled_back_at, EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'
       AND classid = ${MIGRATE_LOCK[0]} AND objid = ${MIGRATE_LOCK[1]} AND objsubid = 2 AND granted) AS migrating
     FROM _prisma_migrations ORDER BY started_at`,
  ).catch(() => []);
  const done = new Set(rows.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => r.migration_name));
  const unfinished = rows.filter((r) => !r.finished_at && !r.rolled_back_at && onDisk.includes(r.migration_name));
  const migrating = rows[0]?.migrating === true;
  return {
    applied: done.size,
    pending: onDisk.filter((m) => !done.has(m)),
    failed: migrating ? [] : unfinished.map((r) => r.migration_name),
    running: migrating ? unfinished.map((r) => r.migration_name) : [],
    unknown: [...done].filter((m) => !onDisk.includes(m)),
  };
}
