import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { seedBulk } from "../../scripts/bench/seed-bulk";
import { testDb } from "./helpers";

// The bench seed writes chunks on several connections at once, each committed with its entry in a ledger: a load
// cut off may leave a chunk missing between two that committed. The next run must write exactly the missing rows
// (row i is the same whatever run writes it), never row count + 1 onwards, which would repeat rows (and their
// unique keys) and leave the hole.

let db: Db;

beforeAll(async () => {
  db = await testDb();
}, 120_000);

afterAll(async () => {
  await closeDb();
});

/** Row numbers present (seed-bulk writes i into the envelope), in order. */
async function rowNumbers(): Promise<number[]> {
  const { rows } = await db.pool.query<{ i: number }>("SELECT (raw_envelope::jsonb->>'bench')::int AS i FROM dead_letter ORDER BY 1");
  return rows.map((r) => r.i);
}

const upTo = (n: number) => Array.from({ length: n }, (_, k) => k + 1);

describe("seedBulk", () => {
  it("loads on a pool's connections, then fills exactly the hole an interrupted load left", async () => {
    expect(await seedBulk(db.pool, 1_000, () => undefined)).toBe(1_000);
    expect(await rowNumbers()).toEqual(upTo(1_000));
    // No ledger is left after a complete load: the table holds rows 1..count.
    const left = await db.pool.query("SELECT to_regclass('bench_seed_chunk') AS t");
    expect(left.rows[0].t).toBeNull();

    // A load from 1,000 to 1,600 cut off: its second chunk (1,301–1,600) committed, its first (1,001–1,300) did not.
    expect(await seedBulk(db.pool, 1_600, () => undefined)).toBe(600);
    await db.pool.query("DELETE FROM dead_letter WHERE (raw_envelope::jsonb->>'bench')::int BETWEEN 1001 AND 1300");
    await db.pool.query("CREATE TABLE bench_seed_chunk (first int PRIMARY KEY, last int NOT NULL)");
    await db.pool.query("INSERT INTO bench_seed_chunk VALUES (1, 1000), (1301, 1600)");

    // One connection this time (bench:rules and bench:export pass a client): the hole, and nothing else.
    const client = await db.pool.connect();
    try {
      expect(await seedBulk(client, 1_600, () => undefined)).toBe(300);
    } finally {
      client.release();
    }
    expect(await rowNumbers()).toEqual(upTo(1_600));
  });
});
