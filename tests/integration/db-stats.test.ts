import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { freshenStatistics } from "../../lib/db/stats";
import { bulkApproved } from "../replay/fixtures";
import { testDb } from "./helpers";

let db: Db;

beforeAll(async () => {
  db = await testDb({ truncate: ["dead_letter", "replay_batch"] });
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("session setup", () => {
  it("runs every connection of the pool with JIT off, from its first query", async () => {
    const clients = await Promise.all([db.pool.connect(), db.pool.connect()]);
    try {
      for (const c of clients) expect((await c.query<{ jit: string }>("SHOW jit")).rows[0]?.jit).toBe("off");
    } finally {
      for (const c of clients) c.release();
    }
  });
});

describe("freshenStatistics", () => {
  it("analyzes a table once a tenth of it changed since its statistics, and leaves fresh ones alone", async () => {
    // Autovacuum (on in the embedded server) could analyze the table itself between our steps.
    await db.pool.query("ALTER TABLE dead_letter SET (autovacuum_enabled = false)");
    await bulkApproved(db.pool, { count: 2000, prefix: "st", kind: "afc" });
    await db.pool.query("ANALYZE dead_letter");
    expect(await freshenStatistics(db.pool, ["dead_letter"])).toEqual([]);
    await db.pool.query("UPDATE dead_letter SET status = 'pending' WHERE id IN (SELECT id FROM dead_letter ORDER BY id LIMIT 400)");
    // pg_stat counters arrive when the updating backend reports them (at most a second later)
    let analyzed: string[] = [];
    for (let i = 0; i < 20 && analyzed.length === 0; i++) {
      analyzed = await freshenStatistics(db.pool, ["dead_letter", "not_a_table"]);
      if (analyzed.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(analyzed).toEqual(["dead_letter"]);
    expect(await freshenStatistics(db.pool, ["dead_letter"])).toEqual([]);
    const { rows } = await db.pool.query(
      "SELECT n_distinct, most_common_vals::text AS mcv FROM pg_stats WHERE tablename = 'dead_letter' AND attname = 'status'",
    );
    expect(rows[0]?.mcv).toContain("pending");
    await db.pool.query("ALTER TABLE dead_letter RESET (autovacuum_enabled)");
  });
});
