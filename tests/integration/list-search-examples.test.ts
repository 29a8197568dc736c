import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { SEARCH_EXAMPLES } from "../../lib/dead-letters/search-examples";
import { seedChunks } from "../../lib/seed/seed-chunks";
import { testDb } from "./helpers";

// The search box's placeholder examples each find something in the demo data, as `npm start` seeds it (seed 42,
// REDRIVE_SEED_COUNT's default 2,000): `parcel-77`, `fence disputed` and `sensor:SN-9` were examples from the tests'
// fixtures and found nothing there.

let db: Db;

beforeAll(async () => {
  db = await testDb();
  await seedChunks({ url: process.env.DATABASE_URL!, seed: 42, count: 2000, offset: 0, stride: 1 });
}, 120_000);

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe("the search box's examples", () => {
  it.each(Object.entries(SEARCH_EXAMPLES))("%s (%s) finds demo records", async (_, q) => {
    const page = await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ q, limit: 5 }));
    expect(page.items.length).toBeGreaterThan(0);
  });
});
