import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSCOPED } from "../../lib/scope/record-scope";
import { closeDb, type Db } from "../../lib/db/client";
import { ListQuerySchema } from "../../lib/dead-letters/filters";
import { facetCounts } from "../../lib/dead-letters/query/facets";
import { listDeadLetters } from "../../lib/dead-letters/query/list";
import { ingest, spatialEnvelope } from "../replay/fixtures";
import { testDb } from "./helpers";

// The list's search box: a key by its first characters in any case (the list shows keys cut short), a feature by
// its id, text with LIKE's wildcards taken literally, and values inside the working payload (never card data).

let db: Db;

beforeAll(async () => {
  db = await testDb();
  await ingest(db, [
    spatialEnvelope({ key: "Sp-2030BA99-4e8f-aaaa", observedAt: 100, featureId: "parcel-77" }),
    spatialEnvelope({ key: "sp-2030ba00-0000-bbbb", observedAt: 200, featureId: "parcel-78" }),
    spatialEnvelope({ key: "key_100%-literal", observedAt: 300, featureId: "parcel-79" }),
    spatialEnvelope({ key: "keyX100Y-other", observedAt: 400, featureId: "parcel-80" }),
    spatialEnvelope({ key: "payment-4111111111111111-x", observedAt: 500, featureId: "parcel-81" }),
    spatialEnvelope({ key: "producer-msg-1796571817221-1", observedAt: 600, featureId: "parcel-82" }),
    spatialEnvelope({ key: "batch-2026-11-07-0042", observedAt: 700, featureId: "parcel-83" }),
    JSON.stringify({
      kind: "spatial",
      source: "test",
      idempotency_key: "sp-payload-sensor",
      observed_at: EPOCH_ISO,
      feature: {
        type: "Feature",
        id: "parcel-90",
        properties: { sensor: "SN-9", level: 3, tags: ["flooded", "culvert"], note: "Fence line disputed by the neighbour" },
        geometry: { type: "Point", coordinates: [2.3522, 48.8566] },
      },
      dead_letter_reason: "HTTP 503",
    }),
    JSON.stringify({
      kind: "spatial",
      source: "test",
      idempotency_key: "sp-payload-other",
      observed_at: EPOCH_ISO,
      feature: {
        type: "Feature",
        id: "parcel-91",
        properties: { sensor: "SN-90", owner: { sensor: "SN-9b" } },
        geometry: { type: "Point", coordinates: [1, 1] },
      },
      dead_letter_reason: "HTTP 503",
    }),
    JSON.stringify({
      kind: "afc",
      source: "test",
      raw_payload: {
        event_id: "tap-search-1",
        device_id: "gate-search",
        fare_amount_cents: 275,
        tap_timestamp: "2026-11-20T08:15:00Z",
        card_pan: "4111111111111111",
        account_ref: "ACC-77",
        card: { holder: "Jane Quokka" },
        operator_note: "rider gave card 5555 5555 5555 4444 by phone",
      },
      failure_reason: "card_pan: Unrecognized key",
      retry_count: 0,
    }),
    JSON.stringify({
      kind: "afc",
      source: "test",
      raw_payload: {
        event_id: "tap-search-2",
        device_id: "gate-search",
        fare_amount_cents: 300,
        // The value after this one in the search document is the tap's time: 6 + 8 digits side by side.
        operator_note: "barrier jammed at gate 679799",
        tap_timestamp: "2026-11-20T08:15:00Z",
      },
      failure_reason: "tap_timestamp: stale",
      retry_count: 0,
    }),
  ]);
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const EPOCH_ISO = "2026-11-01T00:00:00Z";
const keys = async (q: string) =>
  (await listDeadLetters(db.pool, UNSCOPED, ListQuerySchema.parse({ q }))).items.map((r) => r.idempotencyKey);

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

  it("never finds a key by a prefix ending inside a run of digits long enough to be a card number", async () => {
    // Shown as payment-••••••••••••1111-x: the part before the mask finds it, a digit more does not.
    expect(await keys("payment-4111")).toEqual([]);
    expect(await keys("payment-411111111111")).toEqual([]);
    expect(await keys("payment-")).toEqual(["payment-4111111111111111-x"]);
    // Short digit runs (dates, counters) are prefixes like any text; a whole key is found exactly.
    expect(await keys("batch-2026-11")).toEqual(["batch-2026-11-07-0042"]);
    expect(await keys("producer-msg-1796571817221-1")).toEqual(["producer-msg-1796571817221-1"]);
    expect(await keys("producer-msg-")).toEqual(["producer-msg-1796571817221-1"]);
  });

  it("refuses a condition with no value, naming q", () => {
    for (const q of ["properties.sensor =", "properties.sensor ==", "name:"]) {
      expect(ListQuerySchema.safeParse({ q }).error?.issues[0], q).toMatchObject({
        path: ["q"],
        message: expect.stringMatching(/needs a value/),
      });
    }
  });
});

describe("search inside the payload", () => {
  const found = async (q: string) => (await keys(q)).sort();

  it("finds free words among the values, in any order and case", async () => {
    expect(await found("neighbour FENCE")).toEqual(["sp-payload-sensor"]);
    expect(await found("culvert")).toEqual(["sp-payload-sensor"]);
    expect(await found('"line disputed"')).toEqual(["sp-payload-sensor"]);
  });

  it("finds a value at a path, or under a key at any depth, exactly", async () => {
    expect(await found('properties.sensor = "SN-9"')).toEqual(["sp-payload-sensor"]);
    expect(await found("properties.sensor = SN-90")).toEqual(["sp-payload-other"]);
    expect(await found("properties.level = 3")).toEqual(["sp-payload-sensor"]);
    expect(await found("sensor:SN-9b")).toEqual(["sp-payload-other"]);
    expect(await found("fare_amount_cents = 275")).toHaveLength(1);
    expect(await found('properties.note = "Fence line"')).toEqual([]);
  });

  it("finds a condition on a key the record keeps in a column (event_id, device_id, a feature's id)", async () => {
    // These keys are left out of the search document (their columns answer a bare id): a condition on one found nothing.
    expect(await found("device_id:gate-search")).toHaveLength(2);
    expect(await found('event_id = "tap-search-1"')).toHaveLength(1);
    expect(await found("id:parcel-91")).toEqual(["sp-payload-other"]);
    expect(await found("device_id:gate-searc")).toEqual([]);
    expect((await facetCounts(db.pool, UNSCOPED, ListQuerySchema.parse({ q: "device_id:gate-search" }))).total).toBe(2);
  });

  it("counts the facets of a payload search like the list finds it", async () => {
    const facets = await facetCounts(db.pool, UNSCOPED, ListQuerySchema.parse({ q: "sensor:SN-9" }));
    expect(facets.total).toBe(1);
  });

  it("never matches card data, which the list's readers see masked", async () => {
    // A term holding a whole card number is refused (the schema names the parameter), a part of one finds nothing.
    expect(ListQuerySchema.safeParse({ q: "4111111111111111" }).error?.issues[0]).toMatchObject({ path: ["q"] });
    expect(ListQuerySchema.safeParse({ q: "5555 5555 5555 4444" }).success).toBe(false);
    expect(await found("5555 5555 5555")).toEqual([]);
    expect(await found("ACC-77")).toEqual([]);
    expect(await found("Quokka")).toEqual([]);
    // the rest of the same note is searchable
    expect(await found("rider phone")).toHaveLength(1);
    // Digit runs are judged within each value: a number ending one value and a date starting the next are not a
    // card number together.
    expect(await found("barrier 679799")).toHaveLength(1);
    expect(ListQuerySchema.safeParse({ q: 'card_pan = "4111111111111111"' }).success).toBe(false);
  });

  it("does not search the geometry's coordinates", async () => {
    expect(await found("48.8566")).toEqual([]);
  });
});
