import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { compactStats } from "../../lib/dead-letters/query/facets";
import { testDb } from "./helpers";

// The facets' rollup (dead_letter_stat) after a burst of writes: every statement appends a delta row per cell, and
// compaction sums them. Its table must end as short as its cells need, not as long as the burst was: every facet
// read scans it whole.

let db: Db;

beforeAll(async () => {
  db = await testDb();
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const pagesOf = async () =>
  (
    await db.pool.query<{ pages: number; live: number }>(
      `SELECT (pg_relation_size('dead_letter_stat') / current_setting('block_size')::int)::int AS pages,
         (SELECT count(*) FROM dead_letter_stat)::int AS live`,
    )
  ).rows[0]!;

/** `perCell` delta rows (+1 each) on each of `cells` cells, as that many single-record statements would write. */
async function burst(cells: number, perCell: number): Promise<void> {
  await db.pool.query(
    `INSERT INTO dead_letter_stat (kind, status, failure_class, source, reason_group, day, n)
     SELECT 'afc', 'pending', 'transient', 'burst-' || (i % $1::int), 'reason', DATE '2026-11-01', 1
     FROM generate_series(1, $1::int * $2::int) i`,
    [cells, perCell],
  );
}

describe("compacting the rollup after a burst", () => {
  it("sums the cells and leaves the table as short as they need", async () => {
    await burst(300, 600); // 180,000 delta rows: about 1,500 pages
    const before = await pagesOf();
    expect(before.pages).toBeGreaterThan(1000);

    const removed = await compactStats(db.pool, 0);
    expect(removed).toBe(180_000 - 300);

    const after = await pagesOf();
    expect(after.live).toBeLessThanOrEqual(before.live - removed);
    const { rows } = await db.pool.query<{ n: string }>(
      "SELECT sum(n)::text AS n FROM dead_letter_stat WHERE source LIKE 'burst-%' GROUP BY source ORDER BY 1 LIMIT 1",
    );
    expect(rows[0]!.n).toBe("600");
    // Without the second move, the sums sat behind ~1,500 emptied pages, and every facet read scanned them.
    expect(after.pages).toBeLessThan(100);
  });

  it("shrinks a table an earlier compaction left long, on the next round even with nothing to sum", async () => {
    await burst(50, 2_000);
    // The earlier code's compaction: sums in, after the rows they replace, then a vacuum.
    await db.pool.query(`WITH moved AS (DELETE FROM dead_letter_stat RETURNING kind, status, failure_class, source, reason_group, day, n)
      INSERT INTO dead_letter_stat (kind, status, failure_class, source, reason_group, day, n)
      SELECT kind, status, failure_class, source, reason_group, day, sum(n) FROM moved GROUP BY 1, 2, 3, 4, 5, 6`);
    await db.pool.query("VACUUM dead_letter_stat");
    expect((await pagesOf()).pages).toBeGreaterThan(500);

    expect(await compactStats(db.pool)).toBe(0);
    expect((await pagesOf()).pages).toBeLessThan(100);
  });
});
