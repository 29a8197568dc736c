import { describe, expect, inject, it } from "vitest";
import pg from "pg";
import { migrationDrift, applyMigrations } from "../../lib/db/migrate";

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
});
