import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { ingest, spatialEnvelope } from "../replay/fixtures";
import { testDb } from "./helpers";

// The list's search box: a key by its first characters in any case (the list shows keys cut short), a feature by
// its id, and text with LIKE's wildcards taken literally.

let db: Db;

beforeAll(async () => {
  db = await testDb();
  await ingest(db, [
    spatialEnvelope({ key: "Sp-2030BA99-4e8f-aaaa", observedAt: 100, featureId: "parcel-77" }),
    spatialEnvelope({ key: "sp-2030ba00-0000-bbbb", observedAt: 200, featureId: "parcel-78" }),
    spatialEnvelope({ key: "key_100%-literal", observedAt: 300, featureId: "parcel-79" }),
    spatialEnvelope({ key: "keyX100Y-other", observedAt: 400, featureId: "parcel-80" }),
  ]);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const keys = async (q: string) => (await listDeadLetters(db.pool, ListQuerySchema.parse({ q }))).items.map((r) => r.idempotencyKey);

describe("search in the list", () => {
  it("finds a key by its first characters, in any case", async () => {
    expect(await keys("sp-2030ba99")).toEqual(["Sp-2030BA99-4e8f-aaaa"]);
    expect(await keys("SP-2030")).toEqual(["sp-2030ba00-0000-bbbb", "Sp-2030BA99-4e8f-aaaa"]);
    expect(await keys("Sp-2030BA99-4e8f-aaaa")).toEqual(["Sp-2030BA99-4e8f-aaaa"]);
  });

  it("finds a spatial record by its feature id", async () => {
    expect(await keys("parcel-78")).toEqual(["sp-2030ba00-0000-bbbb"]);
  });

  it("takes a short text whole and LIKE's wildcards literally", async () => {
    expect(await keys("sp-20")).toEqual([]);
    expect(await keys("key_100%")).toEqual(["key_100%-literal"]);
  });
});
