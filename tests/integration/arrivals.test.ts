import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { ListFilterSchema } from "../../lib/dead-letters/filters";
import { ARRIVALS_CAP, countArrivals } from "../../lib/dead-letters/query/arrivals";
import { afcRecord, ingest, spatialEnvelope } from "../replay/fixtures";
import { testDb } from "./helpers";

// The list's "N new" banner: records under the same filter that arrived after the list was loaded, counted over
// the new rows only and capped.

let db: Db;

beforeAll(async () => {
  db = await testDb();
  await ingest(db, [spatialEnvelope({ key: "old-1", observedAt: 100, featureId: "f-1" })]);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const filter = (q: Record<string, string> = {}) => ListFilterSchema.parse(q);

describe("arrivals since a watermark", () => {
  it("answers the watermark alone without `after`, then counts what arrives after it under the filter", async () => {
    const first = await countArrivals(db.pool, UNSCOPED, filter(), undefined);
    expect(first).toMatchObject({ count: 0, capped: false });
    expect(await countArrivals(db.pool, UNSCOPED, filter(), first.watermark)).toMatchObject({ watermark: first.watermark, count: 0 });

    // Arrivals are by insertion, not observation: a record observed long ago that arrives now is new.
    await ingest(db, [
      spatialEnvelope({ key: "new-1", observedAt: 50, featureId: "f-2" }),
      spatialEnvelope({ key: "new-2", observedAt: 500, featureId: "f-3" }),
      afcRecord({ eventId: "e-1", deviceId: "d-1", at: 600 }),
    ]);
    const all = await countArrivals(db.pool, UNSCOPED, filter(), first.watermark);
    expect(all.count).toBe(3);
    expect(BigInt(all.watermark)).toBeGreaterThan(BigInt(first.watermark));
    expect((await countArrivals(db.pool, UNSCOPED, filter({ kind: "spatial" }), first.watermark)).count).toBe(2);
    expect((await countArrivals(db.pool, UNSCOPED, filter({ kind: "afc" }), first.watermark)).count).toBe(1);
    expect((await countArrivals(db.pool, UNSCOPED, filter({ status: "approved" }), first.watermark)).count).toBe(0);
    expect((await countArrivals(db.pool, UNSCOPED, filter({ q: "new-2" }), first.watermark)).count).toBe(1);
    // the map's box: only f-2/f-3 sit at 10,50
    expect((await countArrivals(db.pool, UNSCOPED, filter({ bbox: "9,49,11,51" }), first.watermark)).count).toBe(2);
    expect((await countArrivals(db.pool, UNSCOPED, filter({ bbox: "-9,-49,-8,-48" }), first.watermark)).count).toBe(0);
    // from the newer watermark nothing is new
    expect((await countArrivals(db.pool, UNSCOPED, filter(), all.watermark)).count).toBe(0);
  });

  it(`stops counting at ${ARRIVALS_CAP} and says so`, async () => {
    const { watermark } = await countArrivals(db.pool, UNSCOPED, filter(), undefined);
    await ingest(
      db,
      Array.from({ length: ARRIVALS_CAP + 5 }, (_, i) => afcRecord({ eventId: `bulk-${i}`, deviceId: "d-2", at: 1000 + i })),
    );
    expect(await countArrivals(db.pool, UNSCOPED, filter({ kind: "afc" }), watermark)).toMatchObject({ count: ARRIVALS_CAP, capped: true });
    expect(await countArrivals(db.pool, UNSCOPED, filter({ kind: "spatial" }), watermark)).toMatchObject({ count: 0, capped: false });
  });
});
