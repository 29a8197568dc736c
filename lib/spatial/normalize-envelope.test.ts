import { parse } from "lossless-json";
import { beforeAll, describe, expect, it } from "vitest";
import type { NewDeadLetter, NormalizeResult } from "@/lib/vocabulary/record";
import { parsePythonJson } from "@/lib/json/lossless";
import { analyzeGeometry } from "./analyze";
import { MAX_REPLAYS, normalizeSpatialEnvelope, type SpatialContext } from "./normalize-envelope";
import { getGeos } from "./geos";

let ctx: SpatialContext;
const now = new Date("2026-11-29T12:00:00Z");
beforeAll(async () => {
  ctx = { now, geos: await getGeos(), method: "linework", policy: "accept" };
});

const feature = {
  type: "Feature",
  id: 17,
  properties: { parcel: "P-9", name: "plot" },
  geometry: {
    type: "Polygon",
    coordinates: [
      [
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 1],
        [0, 0],
      ],
    ],
  },
};
const envelope = {
  kind: "spatial",
  source: "parcels",
  idempotency_key: "parcels:17:v3",
  observed_at: 1764417600,
  feature,
  dead_letter_reason: "sink rejected: invalid geometry",
  replay_count: 0,
  crs: "EPSG:4326",
};

/** Normalizes the record the way ingest does: from its text, through lossless-json. */
function normalize(value: unknown, overrides: Partial<SpatialContext> = {}): NormalizeResult {
  const text = JSON.stringify(value);
  return normalizeSpatialEnvelope(parse(text), text, { ...ctx, ...overrides });
}

function record(value: unknown, overrides: Partial<SpatialContext> = {}): NewDeadLetter {
  const result = normalize(value, overrides);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.record;
}

describe("normalizeSpatialEnvelope", () => {
  it("maps a valid envelope to a transient record", () => {
    const r = record(envelope);
    expect(r).toMatchObject({
      kind: "spatial",
      source: "parcels",
      idempotencyKey: "parcels:17:v3",
      entityKey: "17",
      eventId: null,
      deviceId: null,
      sourceMessageId: null,
      observedAt: new Date("2025-11-29T12:00:00Z"),
      firstSeenAt: now,
      rawEnvelope: JSON.stringify(envelope),
      payload: feature,
      failureReason: "sink rejected: invalid geometry",
      failureClass: "transient",
      classReason: "geometry valid",
      replayCount: 0,
    });
    expect(r.spatial).toMatchObject({ repairedGeometry: null, bbox: [0, 0, 1, 1], analysis: { outcome: "valid" } });
  });

  it("stores a repairable geometry as transient with the repair beside the original", () => {
    const bowtie = {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 1],
          [1, 0],
          [0, 1],
          [0, 0],
        ],
      ],
    };
    const r = record({ ...envelope, feature: { ...feature, geometry: bowtie } });
    expect(r.failureClass).toBe("transient");
    expect(r.classReason).toBe("geometry repaired");
    expect(r.payload).toMatchObject({ geometry: bowtie });
    expect(r.spatial?.repairedGeometry).toMatchObject({ type: "MultiPolygon" });
  });

  it("accepts epoch floats, RFC 3339 and naive ISO timestamps (as UTC)", () => {
    expect(record({ ...envelope, observed_at: 1764417600.25 }).observedAt.toISOString()).toBe("2025-11-29T12:00:00.250Z");
    expect(record({ ...envelope, observed_at: "2025-11-29T13:00:00+01:00" }).observedAt.toISOString()).toBe("2025-11-29T12:00:00.000Z");
    expect(record({ ...envelope, observed_at: "2025-11-29T12:00:00.123456" }).observedAt.toISOString()).toBe("2025-11-29T12:00:00.123Z");
  });

  it("accepts RFC 3339's lower-case t/z and Python's str(datetime) with a space", () => {
    expect(record({ ...envelope, observed_at: "2025-11-29t12:00:00z" }).observedAt.toISOString()).toBe("2025-11-29T12:00:00.000Z");
    expect(record({ ...envelope, observed_at: "2025-11-29 13:00:00.5+01:00" }).observedAt.toISOString()).toBe("2025-11-29T12:00:00.500Z");
    expect(record({ ...envelope, observed_at: "2025-11-29 12:00:00" }).observedAt.toISOString()).toBe("2025-11-29T12:00:00.000Z");
  });

  it.each([
    [{ ...envelope, kind: "afc" }, "kind"],
    [{ ...envelope, observed_at: undefined }, "observed_at"],
    [{ ...envelope, observed_at: "yesterday" }, "observed_at"],
    [{ ...envelope, observed_at: 1764417600000 }, "observed_at"],
    [{ ...envelope, feature: [feature] }, "feature"],
    [{ ...envelope, feature: "not json" }, "feature"],
    [{ ...envelope, crs: "EPSG:2154" }, "crs"],
  ])("rejects an unusable envelope (%#: %s)", (value, path) => {
    const result = normalize(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path)).toContain(path);
  });

  it("rejects a value that is not an object", () => {
    expect(normalizeSpatialEnvelope([envelope], "[]", ctx)).toEqual({
      ok: false,
      errors: [{ path: "(root)", message: "must be a JSON object" }],
    });
  });

  it.each([
    [1764417600000, "milliseconds sent by mistake"],
    [undefined, "is required"],
    [true, "must be epoch seconds (number) or an RFC 3339 timestamp (string)"],
    ["29/11/2025", "must be an RFC 3339 timestamp"],
  ])("says what is wrong with observed_at %j", (observed, message) => {
    const result = normalize({ ...envelope, observed_at: observed });
    if (result.ok) throw new Error("accepted");
    expect(result.errors).toEqual([{ path: "observed_at", message: expect.stringContaining(message) }]);
  });

  it.each(["NaN", "Infinity", "-Infinity", "1e400"])(
    "says a bare %s observed_at is not a finite number of epoch seconds, once",
    (lexeme) => {
      const text = JSON.stringify({ ...envelope, observed_at: 0 }).replace('"observed_at":0', `"observed_at":${lexeme}`);
      const result = normalizeSpatialEnvelope(parsePythonJson(text), text, ctx);
      expect(result).toEqual({ ok: false, errors: [{ path: "observed_at", message: "must be a finite number of epoch seconds" }] });
    },
  );

  it("stores without an idempotency key, as poison", () => {
    const { idempotency_key: _omitted, ...rest } = envelope;
    const r = record(rest);
    expect(r).toMatchObject({ idempotencyKey: null, failureClass: "poison", classReason: "missing idempotency key" });
  });

  it(`makes a record replayed ${MAX_REPLAYS} times poison`, () => {
    expect(record({ ...envelope, replay_count: 2 }).failureClass).toBe("transient");
    expect(record({ ...envelope, replay_count: 3 })).toMatchObject({
      failureClass: "poison",
      classReason: "replayed 3 times",
      replayCount: 3,
    });
    expect(record({ ...envelope, replay_count: "two" }).classReason).toContain("invalid replay_count");
  });

  it("stores an irreparable geometry as poison with the reason", () => {
    const r = record({
      ...envelope,
      feature: {
        ...feature,
        geometry: {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [1, 0],
            ],
          ],
        },
      },
    });
    expect(r.failureClass).toBe("poison");
    expect(r.classReason).toContain("All parts collapsed: Unclosed ring");
    expect(r.spatial?.analysis.outcome).toBe("dropped");
    const nothing = record({ ...envelope, feature: { ...feature, geometry: null } });
    expect(nothing.classReason).toBe("Geometry is null");
    expect(nothing.spatial?.bbox).toBeNull();
  });

  it("joins several poison reasons", () => {
    const { idempotency_key: _omitted, ...rest } = envelope;
    expect(record({ ...rest, replay_count: 5 }).classReason).toBe("missing idempotency key; replayed 5 times");
  });

  it("reprojects the payload geometry to EPSG:4326", () => {
    const r = record({ ...envelope, crs: "EPSG:3857", feature: { ...feature, geometry: { type: "Point", coordinates: [1e7, 5e6] } } });
    expect(r.payload).toMatchObject({ geometry: { type: "Point", coordinates: [89.83152841195215, 40.91627447067577] } });
    expect(r.spatial?.analysis.crs).toBe("EPSG:3857");
  });

  it("reprojects a declared WGS 84 / UTM zone to EPSG:4326 and validates there", () => {
    const bowtie = {
      type: "Polygon",
      coordinates: [
        [
          [500000, 0],
          [502000, 2000],
          [502000, 0],
          [500000, 2000],
          [500000, 0],
        ],
      ],
    };
    const r = record({ ...envelope, crs: "EPSG:32633", feature: { ...feature, geometry: bowtie } });
    const ring = (r.payload as { geometry: { coordinates: number[][][] } }).geometry.coordinates[0]!;
    expect(ring[0]![0]).toBeCloseTo(15, 9);
    expect(ring[0]![1]).toBeCloseTo(0, 9);
    expect(r.spatial?.analysis).toMatchObject({ crs: "EPSG:32633", valid_before: false, outcome: "repaired", type_after: "MultiPolygon" });
    expect(r.spatial?.analysis.reason).toMatch(/^Self-intersection at or near point \(15\.0089/);
  });

  it("keeps exact lexemes for numeric keys and ids", () => {
    const text = JSON.stringify({ ...envelope, feature: { ...feature, id: "§" } })
      .replace('"parcels:17:v3"', "12345678901234567890")
      .replace('"§"', "9007199254740993");
    const result = normalizeSpatialEnvelope(parse(text), text, ctx);
    if (!result.ok) throw new Error("rejected");
    expect(result.record.idempotencyKey).toBe("12345678901234567890");
    expect(result.record.entityKey).toBe("9007199254740993");
  });

  it("uses the configured entity property, message ids and defaults", () => {
    const { source: _s, dead_letter_reason: _d, ...rest } = envelope;
    const r = record({ ...rest, message_id: "m-1", extra: { kept: true } }, { entityProperty: "parcel" });
    expect(r).toMatchObject({
      entityKey: "P-9",
      sourceMessageId: "m-1",
      source: "unknown",
      failureReason: "unknown",
    });
    expect(r.rawEnvelope).toContain('"extra"');
    expect(record({ ...envelope, source_message_id: 42, message_id: "m-1" }).sourceMessageId).toBe("42");
  });

  it("makes a non-Feature poison and keeps an exception object as JSON text", () => {
    const r = record({ ...envelope, feature: feature.geometry, dead_letter_reason: { error: "TopologyException" } });
    expect(r.classReason).toContain("feature is not a GeoJSON Feature");
    expect(r.failureReason).toBe('{"error":"TopologyException"}');
  });
});

describe("a position JSON cannot carry (a bare NaN, as Python's json.dumps writes it)", () => {
  const text = (crs: string, ring: string) =>
    `{"kind":"spatial","idempotency_key":"nan-1","observed_at":1764417600,"crs":"${crs}",` +
    `"feature":{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[${ring}]}}}`;
  const normalizeText = (t: string) => normalizeSpatialEnvelope(parsePythonJson(t), t, ctx);

  it("is left out of the working geometry, so re-validating it later finds what the ingest found", () => {
    const result = normalizeText(text("EPSG:3857", "[[0,0],[1000,0],[NaN,1000],[1000,1000],[0,1000],[0,0]]"));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { record } = result;
    expect(record.spatial?.analysis).toMatchObject({
      outcome: "repaired",
      reason: expect.stringContaining("Invalid Coordinate (NaN, 1000)"),
    });
    const geometry = (record.payload as { geometry: { coordinates: number[][][] } }).geometry;
    // five positions left, every one in degrees: no null, no metres beside degrees
    expect(geometry.coordinates[0]).toHaveLength(5);
    for (const [x, y] of geometry.coordinates[0]!) {
      expect(Number.isFinite(x) && Number.isFinite(y) && Math.abs(x!) < 0.01 && Math.abs(y!) < 0.01).toBe(true);
    }
    // what a replay does with the working payload: re-validate it
    const again = analyzeGeometry(ctx.geos, geometry, { method: "linework", policy: "accept" });
    expect(again.analysis.outcome).toBe("valid");
    expect(record.rawEnvelope).toContain("[NaN,1000]");
  });

  it("as a z alone, loses only the z: the position stays, as the validity checks kept it", () => {
    const result = normalizeText(text("EPSG:4326", "[[0,0,1],[1,0,NaN],[1,1,5],[0,1,5],[0,0,1]]"));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.record.spatial?.analysis.outcome).toBe("valid");
    expect((result.record.payload as { geometry: unknown }).geometry).toEqual({
      type: "Polygon",
      coordinates: [
        [
          [0, 0, 1],
          [1, 0],
          [1, 1, 5],
          [0, 1, 5],
          [0, 0, 1],
        ],
      ],
    });
  });
});
