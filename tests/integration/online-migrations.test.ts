import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { applyMigrations } from "../../lib/db/migrate";
import { migrationStatus } from "../../lib/db/migration-files";
import { LOCK_TIMEOUT_MS, RUNNER_APPLICATION } from "../../lib/db/online-runner";
import { connectionFields } from "../../lib/db/pg-adapter";

// The fixture's second migration is marked redrive:no-transaction: a nullable column, a trigger, a batched
// backfill and CREATE INDEX CONCURRENTLY (which PostgreSQL refuses inside a transaction block).
const FIXTURE = fileURLToPath(new URL("../fixtures/online-migration", import.meta.url));
const ONLINE = "20260101000100_item_doc";

describe("no-transaction migrations", () => {
  const name = `${inject("databasePrefix")}_online_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Client({ ...connectionFields(inject("serverUrl")), database: "postgres" });
  let url = "";
  let db: pg.Client;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const u = new URL(inject("serverUrl"));
    u.pathname = `/${name}`;
    url = u.toString();
    db = new pg.Client(connectionFields(url));
    await db.connect();
  });

  afterAll(async () => {
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  it("runs CONCURRENTLY outside a transaction; a backfill cut off half-way resumes; an INVALID index is rebuilt", async () => {
    const first = applyMigrations(url, FIXTURE);
    // Cut the runner's session off once some batches have committed and the rest have not.
    let progress: { rows: string; finished: boolean } | undefined;
    for (let i = 0; i < 400; i++) {
      progress = await db
        .query<{ rows: string; finished: boolean }>(
          "SELECT rows::text AS rows, finished_at IS NOT NULL AS finished FROM redrive_migrate.backfill WHERE name = 'item_doc'",
        )
        .then((r) => r.rows[0])
        .catch(() => undefined);
      if (progress && Number(progress.rows) >= 2000) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(progress?.finished).toBe(false);
    // Meanwhile health says it is being applied (readiness: not ready for code that expects it), not failed.
    const status = await migrationStatus(async (sql) => (await db.query(sql)).rows, FIXTURE);
    expect(status).toMatchObject({ running: [ONLINE], failed: [], pending: [ONLINE] });
    await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = $2", [
      RUNNER_APPLICATION,
      name,
    ]);
    await expect(first).rejects.toThrow();
    // Nobody applies it now: it failed, until the next run takes it up again.
    expect(await migrationStatus(async (sql) => (await db.query(sql)).rows, FIXTURE)).toMatchObject({ running: [], failed: [ONLINE] });

    const cut = await db.query<{ rows: string; last: string }>(
      "SELECT rows::text AS rows, last_key::text AS last FROM redrive_migrate.backfill",
    );
    const doneBefore = Number(cut.rows[0]!.rows);
    expect(doneBefore).toBeGreaterThan(0);
    expect(doneBefore).toBeLessThan(20_000);
    const filled = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM item WHERE doc IS NOT NULL");
    expect(filled.rows[0]!.n).toBe(doneBefore);
    const unfinished = await db.query("SELECT 1 FROM _prisma_migrations WHERE migration_name = $1 AND finished_at IS NULL", [ONLINE]);
    expect(unfinished.rowCount).toBe(1);

    // Rows written meanwhile get their column from the trigger.
    await db.query("INSERT INTO item (grp, body) VALUES (1, 'written during the migration')");
    // What an interrupted CREATE INDEX CONCURRENTLY leaves: an INVALID index under the migration's index name.
    await db.query("CREATE UNIQUE INDEX CONCURRENTLY item_doc_idx ON item (grp)").catch(() => {});
    const invalid = await db.query("SELECT 1 FROM pg_index WHERE indexrelid = 'item_doc_idx'::regclass AND NOT indisvalid");
    expect(invalid.rowCount).toBe(1);

    // A long reader holds the table while the re-run's ALTER TABLE needs it: the ALTER gives up its place in the
    // lock queue after LOCK_TIMEOUT_MS and tries again, so readers arriving meanwhile wait at most about that long.
    const reader = new pg.Client(connectionFields(url));
    await reader.connect();
    await reader.query("BEGIN");
    await reader.query("LOCK TABLE item IN ACCESS SHARE MODE");
    const rerun = applyMigrations(url, FIXTURE);
    let worstRead = 0;
    const readsUntil = Date.now() + 2500;
    while (Date.now() < readsUntil) {
      const t = performance.now();
      await db.query("SELECT count(*) FROM item WHERE id = 1");
      worstRead = Math.max(worstRead, performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
    await reader.query("COMMIT");
    await reader.end();
    expect(await rerun).toEqual([ONLINE]);
    expect(worstRead).toBeLessThan(LOCK_TIMEOUT_MS + 500);

    const after = await db.query<{ rows: string; last: string; batches: number; finished: boolean }>(
      "SELECT rows::text AS rows, last_key::text AS last, batches, finished_at IS NOT NULL AS finished FROM redrive_migrate.backfill",
    );
    // Resumed, not restarted: the rows counted over both runs are the table's rows, each once.
    expect(after.rows[0]).toMatchObject({ rows: "20001", finished: true });
    const empty = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM item WHERE doc IS NULL");
    expect(empty.rows[0]!.n).toBe(0);
    const index = await db.query<{ valid: boolean; def: string }>(
      "SELECT i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i WHERE i.indexrelid = 'item_doc_idx'::regclass",
    );
    expect(index.rows[0]).toEqual({ valid: true, def: "CREATE INDEX item_doc_idx ON public.item USING gin (doc)" });

    const history = await db.query<{ finished: boolean; rolled_back: boolean }>(
      "SELECT finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations WHERE migration_name = $1 ORDER BY started_at",
      [ONLINE],
    );
    expect(history.rows).toEqual([
      { finished: false, rolled_back: true },
      { finished: true, rolled_back: false },
    ]);
    expect(await applyMigrations(url, FIXTURE)).toEqual([]);
  });
});
