import { randomBytes } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import pg from "pg";
import { migrationDrift, applyMigrations } from "../../lib/db/migrate";
import { readMigrationList } from "../../lib/db/migration-files";
import { connectionFields } from "../../lib/db/pg-adapter";

describe("migrations", () => {
  it("schema.prisma and prisma/migrations describe the same database", async () => {
    const drift = await migrationDrift(inject("databaseUrl"));
    expect(drift, "run `npm run db:migrate:create -- <name>` to add a migration for the schema change").toBe("");
  });

  it("are all applied and applying again is a no-op", async () => {
    expect(await applyMigrations(inject("databaseUrl"))).toEqual([]);
    const client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
    const { rows } = await client.query("SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL");
    await client.end();
    expect(rows[0].n).toBeGreaterThanOrEqual(2);
  });

  // The schema engine applies migrations under a PostgreSQL advisory lock of its own: servers, workers and
  // `redrive db migrate` started together take turns, and the ones that come second apply nothing. The README's
  // "Running several servers" relies on it.
  it("run once when several processes start together on an empty database (advisory lock)", async () => {
    const server = inject("serverUrl");
    const name = `${inject("databasePrefix")}_race_${randomBytes(3).toString("hex")}`;
    const admin = new pg.Client({ ...connectionFields(server), database: "postgres" });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    try {
      const url = new URL(server);
      url.pathname = `/${name}`;
      const runs = await Promise.all([0, 1, 2].map(() => applyMigrations(url.toString())));
      const all = (await readMigrationList()).migrationDirectories.length;
      // One of them applied every migration; the others waited and found nothing left to do.
      expect(runs.map((a) => a.length).sort((a, b) => a - b)).toEqual([0, 0, all]);
      const client = new pg.Client({ ...connectionFields(url.toString()) });
      await client.connect();
      const { rows } = await client.query("SELECT count(*)::int AS n, count(DISTINCT migration_name)::int AS d FROM _prisma_migrations");
      await client.end();
      expect(rows[0]).toEqual({ n: all, d: all });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
