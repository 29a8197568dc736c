import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { ListFilterSchema, ListQuerySchema } from "../../lib/dead-letters/filters";
import { matchingExtent } from "../../lib/dead-letters/query/extent";
import { countMatching, facetCounts } from "../../lib/dead-letters/query/facets";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { afcRecord, ingest, spatialEnvelope } from "../replay/fixtures";
import { testDb } from "./helpers";

// The list filtered by broker source (origin=<name>, dead_letter.origin_source): the page, the facet counts and
// the counts bulk actions confirm must all be the source's records only, although the rollup the counts usually
// come from has no origin column.

let db: Db;
const ids: string[] = [];

beforeAll(async () => {
  db = await testDb();
  ids.push(
    ...(await ingest(db, [
      spatialEnvelope({ key: "o-1", observedAt: 10, featureId: "f-1" }),
      spatialEnvelope({ key: "o-2", observedAt: 20, featureId: "f-2" }),
      spatialEnvelope({ key: "o-3", observedAt: 30, featureId: "f-3" }),
      afcRecord({ eventId: "e-1", deviceId: "gate-1", at: 40 }),
      spatialEnvelope({ key: "plain-1", observedAt: 50, featureId: "f-4" }),
      afcRecord({ eventId: "e-2", deviceId: "gate-2", at: 60 }),
    ])),
  );
  // As the pull loop stores them (lib/dead-letters/store): the source's name beside the origin.
  await db.pool.query("UPDATE dead_letter SET origin_source = 'orders-dlq' WHERE id = ANY($1::bigint[])", [ids.slice(0, 3)]);
  await db.pool.query("UPDATE dead_letter SET origin_source = 'taps-dlq' WHERE id = $1", [ids[3]]);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const keysOf = async (query: Record<string, string>) =>
  (await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse(query))).items.map((i) => i.idempotencyKey).sort();

describe("origin filter", () => {
  it("lists only the source's records, alone or with other filters", async () => {
    expect(await keysOf({ origin: "orders-dlq" })).toEqual(["o-1", "o-2", "o-3"]);
    expect(await keysOf({ origin: "orders-dlq", kind: "spatial", status: "pending" })).toEqual(["o-1", "o-2", "o-3"]);
    expect(await keysOf({ origin: "orders-dlq", q: "o-2" })).toEqual(["o-2"]);
    expect(await keysOf({ origin: "orders-dlq", bbox: "9,49,11,51" })).toEqual(["o-1", "o-2", "o-3"]);
    expect(await keysOf({ origin: "nobody" })).toEqual([]);
  });

  it("counts facets exactly from the source's records, not from the rollup of every record", async () => {
    const facets = await facetCounts(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "orders-dlq" }));
    expect(facets).toMatchObject({ total: 3, exact: true, kind: [{ value: "spatial", count: 3 }] });
    const withFacet = await facetCounts(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "taps-dlq", kind: "spatial" }));
    expect(withFacet.total).toBe(0);
    // kind's own facet ignores its selection (disjunctive), but not the origin
    expect(withFacet.kind).toEqual([
      { value: "afc", count: 1 },
      { value: "spatial", count: 0 },
    ]);
    const inView = await facetCounts(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "orders-dlq", bbox: "9,49,11,51" }));
    expect(inView).toMatchObject({ total: 3, exact: true });
    expect((await facetCounts(db.pool, UNSCOPED, {})).total).toBe(6);
  });

  it("counts what a bulk action or a replay by this filter would touch", async () => {
    expect(await countMatching(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "orders-dlq" }))).toBe(3);
    expect(await countMatching(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "orders-dlq", status: "approved" }))).toBe(0);
    expect(await countMatching(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "orders-dlq", bbox: "9,49,11,51" }))).toBe(3);
    expect(await countMatching(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "taps-dlq" }))).toBe(1);
  });

  it("fits the map to the source's records", async () => {
    expect(await matchingExtent(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "orders-dlq" }))).toMatchObject({ count: 3 });
    expect(await matchingExtent(db.pool, UNSCOPED, ListFilterSchema.parse({ origin: "taps-dlq" }))).toEqual({ bbox: null, count: 0 });
  });
});
