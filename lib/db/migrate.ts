import "server-only";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import type { MigrationList } from "@prisma/schema-engine-wasm";
import { MIGRATE_LOCK, MIGRATIONS_DIR, readMigrationList, readSchema } from "./migration-files";
import { isNoTransaction } from "./migration-script";
import { connectionFields } from "./pg-adapter";
import { NO_FILTER, withSchemaEngine } from "./schema-engine";

/**
 * Applies every migration in prisma/migrations (or `dir`) not yet recorded in _prisma_migrations. Processes take
 * turns on an advisory lock held by a session of its own for the whole run: the engine's own lock lives on a pooled
 * connection, and a `no-transaction` migration runs on another session for as long as its backfills take.
 */
export async function applyMigrations(url: string, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrationsList = await readMigrationList(dir);
  const lock = new pg.Client(connectionFields(url));
  lock.on("error", () => {});
  await lock.connect();
  try {
    await takeMigrateLock(lock);
    await retryInterrupted(lock, migrationsList);
    return await withSchemaEngine(url, async (engine) => {
      const out = await engine.applyMigrations({ migrationsList, filters: NO_FILTER });
      return out.appliedMigrationNames;
    });
  } finally {
    await lock.end().catch(() => {});
  }
}

/**
 * Waits for the migrate lock by trying it, never by blocking on it: a session blocked in `pg_advisory_lock` holds
 * a snapshot the whole time, and `CREATE INDEX CONCURRENTLY` in the lock holder's migration waits for every
 * snapshot older than its own, so processes that start together would wait on each other for good (the build's
 * lock_timeout retries forever).
 */
async function takeMigrateLock(lock: pg.Client): Promise<void> {
  for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
    const { rows } = await lock.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", MIGRATE_LOCK);
    if (rows[0]?.ok) return;
    await new Promise((r) => setTimeout(r, wait));
  }
}

/**
 * A `no-transaction` migration that did not finish (its process died, a statement failed) is marked rolled back,
 * so the engine applies it again: each of its steps is safe to repeat and its backfills resume. Under the migrate
 * lock, an unfinished row belongs to no running process. A transactional migration that failed left nothing
 * behind but its row; the engine reports it (`migrate resolve` territory) as before.
 */
async function retryInterrupted(client: pg.Client, list: MigrationList): Promise<void> {
  const rows = await client
    .query<{ id: string; migration_name: string }>(
      "SELECT id, migration_name FROM _prisma_migrations WHERE finished_at IS NULL AND rolled_back_at IS NULL",
    )
    .then(
      (r) => r.rows,
      () => [],
    );
  for (const row of rows) {
    const dir = list.migrationDirectories.find((d) => d.path === row.migration_name);
    const content = dir?.migrationFile.content;
    if (content?.tag !== "ok" || !isNoTransaction(content.value)) continue;
    console.log(`[migrate] ${row.migration_name} did not finish: running it again (its steps repeat safely, backfills resume)`);
    await client.query("UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = $1", [row.id]);
  }
}

/**
 * The SQL that would take a database built from the migrations to what schema.prisma describes; empty when the
 * two agree. Uses a shadow database on the server behind `url`.
 */
export async function migrationDrift(url: string): Promise<string> {
  const migrationsList = await readMigrationList();
  const schema = await readSchema();
  return withSchemaEngine(url, async (engine) => {
    const out = await engine.diff({
      from: { tag: "migrations", ...migrationsList },
      to: { tag: "schemaDatamodel", files: [schema] },
      script: true,
      exitCode: null,
      filters: NO_FILTER,
    });
    const script = withoutSqlOnlyIndexes((out.stdout ?? "").trim());
    return script === "-- This is an empty migration." ? "" : script;
  });
}

/**
 * Indexes created by hand-written migration SQL because schema.prisma cannot express them (GiST with INCLUDE
 * columns). The engine sees them in the migrated database but not in the schema and would drop them; the
 * drift script's statements about them are removed here, so they are neither drift nor dropped by a migration.
 */
export const SQL_ONLY_INDEXES: readonly string[] = [
  // prisma/migrations/*_triage_facets: the viewport filter's covering GiST, and the two observed_at walks
  // (declared in schema.prisma without their INCLUDE (bbox)) that check a viewport without heap access
  "dead_letter_view_idx",
  "dead_letter_observed_idx",
  "dead_letter_status_observed_idx",
  // *_covering_list_walks: the source, reason and device walks with the facet columns in INCLUDE
  "dead_letter_source_cover_idx",
  "dead_letter_reason_cover_idx",
  "dead_letter_device_cover_idx",
  // *_note_search_text: the note filter's trigram index (an operator class schema.prisma has no word for)
  "dead_letter_note_search_trgm_idx",
  // *_search_doc_column: the payload search's GIN over a column schema.prisma can only call Unsupported
  "dead_letter_search_idx",
  // *_source_message_body_hash: broker positions found by prefix (text_pattern_ops, declared plain in the schema)
  "source_message_position_idx",
];

export function withoutSqlOnlyIndexes(script: string): string {
  const blocks = script.split(/\n\s*\n/);
  const kept = blocks.filter((block) => !SQL_ONLY_INDEXES.some((name) => block.includes(`"${name}"`)));
  return kept.length === blocks.length ? script : kept.join("\n\n").trim() || "-- This is an empty migration.";
}

/** Writes a new migration folder for the difference between the migrations and schema.prisma. */
export async function createMigration(url: string, name: string, now: Date): Promise<string | null> {
  // The engine infers the connector from the lock file, so it must exist before the first diff.
  const lock = join(MIGRATIONS_DIR, "migration_lock.toml");
  if ((await readFile(lock, "utf8").catch(() => null)) === null) {
    await mkdir(MIGRATIONS_DIR, { recursive: true });
    await writeFile(
      lock,
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
    );
  }
  const script = await migrationDrift(url);
  if (!script) return null;
  const stamp = now.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const dir = `${stamp}_${name.replace(/[^a-z0-9_]/gi, "_")}`;
  await mkdir(join(MIGRATIONS_DIR, dir), { recursive: true });
  await writeFile(join(MIGRATIONS_DIR, dir, "migration.sql"), `${script}\n`);
  return dir;
}
