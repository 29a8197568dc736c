import { LosslessNumber } from "lossless-json";
import { describe, expect, it } from "vitest";
import { analyzeGeometry } from "./analyze";
import { DEFAULT_GEOMETRY_LIMITS, geometryOverLimits, type GeometryLimits } from "./geometry-limits";
import { getGeos, type Geos } from "./geos";

const small: GeometryLimits = { maxVertices: 10, maxParts: 3, maxNesting: 1 };

const ring = (n: number) => [...Array.from({ length: n - 1 }, (_, i) => [i, i % 2]), [0, 0]];

describe("geometryOverLimits", () => {
  it("lets through what is within every limit, exactly at the limit included", () => {
    expect(geometryOverLimits({ type: "Polygon", coordinates: [ring(10)] }, small)).toBeNull();
    expect(geometryOverLimits({ type: "MultiLineString", coordinates: [ring(3), ring(3), ring(4)] }, small)).toBeNull();
    expect(geometryOverLimits({ type: "Point", coordinates: [1, 2] }, small)).toBeNull();
  });

  it("counts vertices across rings, polygons and members, and names the limit", () => {
    expect(geometryOverLimits({ type: "Polygon", coordinates: [ring(11)] }, small)).toBe(
      "Geometry has more than 10 vertices; the limit is 10",
    );
    const multi = { type: "MultiPolygon", coordinates: [[ring(6)], [ring(6)]] };
    expect(geometryOverLimits(multi, small)).toMatch(/more than 10 vertices/);
    const collection = {
      type: "GeometryCollection",
      geometries: [
        { type: "LineString", coordinates: ring(6) },
        { type: "MultiPoint", coordinates: ring(6) },
      ],
    };
    expect(geometryOverLimits(collection, { ...small, maxParts: 10 })).toMatch(/more than 10 vertices/);
  });

  it("counts lossless-json numbers (the ingest parser's) as coordinates", () => {
    const p = () => [new LosslessNumber("1"), new LosslessNumber("2")];
    expect(geometryOverLimits({ type: "MultiPoint", coordinates: [[p(), p()]] }, { ...small, maxVertices: 1 })).toBeNull();
    expect(geometryOverLimits({ type: "LineString", coordinates: [p(), p()] }, { ...small, maxVertices: 1 })).toMatch(
      /more than 1 vertices/,
    );
  });

  it("counts parts: rings, lines and collection members", () => {
    const holes = { type: "Polygon", coordinates: [ring(2), ring(2), ring(2), ring(2)] };
    expect(geometryOverLimits(holes, small)).toBe("Geometry has more than 3 parts (rings, lines or members); the limit is 3");
    const points = { type: "GeometryCollection", geometries: Array.from({ length: 4 }, () => ({ type: "Point", coordinates: [0, 0] })) };
    expect(geometryOverLimits(points, { ...small, maxParts: 7 })).toMatch(/more than 7 parts/);
  });

  it("limits collections nested in collections", () => {
    const nest = (depth: number): unknown =>
      depth === 0 ? { type: "Point", coordinates: [0, 0] } : { type: "GeometryCollection", geometries: [nest(depth - 1)] };
    expect(geometryOverLimits(nest(2), { ...small, maxParts: 100 })).toBeNull();
    expect(geometryOverLimits(nest(3), { ...small, maxParts: 100 })).toBe(
      "GeometryCollection nested more than 1 levels deep; the limit is 1",
    );
  });

  it("leaves what is not a countable geometry to the parser, which says what is wrong", () => {
    for (const v of [
      null,
      3,
      "x",
      [],
      { type: "Polygon" },
      { type: "Polygon", coordinates: "no" },
      { type: "Nope", coordinates: [[1, 2]] },
    ])
      expect(geometryOverLimits(v, small)).toBeNull();
  });

  it("stops counting at the limit: a 1,000,000-vertex ring is one step per ring, not per vertex", () => {
    const huge = { type: "Polygon", coordinates: [new Array(1_000_000).fill([0, 0])] };
    const t0 = performance.now();
    expect(geometryOverLimits(huge)).toBe(
      `Geometry has more than ${DEFAULT_GEOMETRY_LIMITS.maxVertices} vertices; the limit is ${DEFAULT_GEOMETRY_LIMITS.maxVertices}`,
    );
    expect(performance.now() - t0).toBeLessThan(50);
  });
});

describe("analyzeGeometry with limits", () => {
  it("drops a geometry past a limit with the reason, without calling GEOS", () => {
    // Any call into GEOS would throw: the limit is checked before the geometry reaches it.
    const noGeos = new Proxy(
      {},
      {
        get: () => {
          throw new Error("GEOS was called");
        },
      },
    ) as Geos;
    const { analysis, repaired } = analyzeGeometry(
      noGeos,
      { type: "Polygon", coordinates: [ring(11)] },
      { method: "linework", policy: "accept", limits: small },
    );
    expect(analysis).toMatchObject({ outcome: "dropped", drop_reason: "Geometry has more than 10 vertices; the limit is 10" });
    expect(repaired).toBeNull();
  });

  it("drops the record whose GEOS call aborted the module, with the reason, and marks that GEOS broken", async () => {
    const real = await getGeos();
    // The module as std::bad_alloc leaves it: every call into it throws Emscripten's abort.
    const aborted = Object.create(real, {
      lib: {
        get() {
          throw new WebAssembly.RuntimeError("Aborted(OOM)");
        },
      },
    }) as Geos;
    const square = {
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
    };
    const { analysis } = analyzeGeometry(aborted, square, { method: "linework", policy: "accept" });
    expect(analysis).toMatchObject({ outcome: "dropped", drop_reason: "GEOS could not process the geometry: Aborted(OOM)" });
    expect(aborted.broken).toBe(true);
    expect(real.broken).toBe(false);
  });
});
