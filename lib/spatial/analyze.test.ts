import { parse } from "lossless-json";
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeGeometry } from "./analyze";
import { REPAIR_METHODS, REPAIR_POLICIES } from "@/lib/vocabulary/record";
import { loadCorpus, noisyPolygon } from "./corpus";
import { getGeos, type Geos } from "./geos";

let geos: Geos;
beforeAll(async () => {
  geos = await getGeos();
});

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

describe("analyzeGeometry", () => {
  it("returns a valid input as given, with its area and bbox", () => {
    const input = structuredClone(square);
    const result = analyzeGeometry(geos, input, { method: "linework", policy: "accept" });
    expect(result.analysis).toEqual({
      method: "linework",
      policy: "accept",
      crs: "EPSG:4326",
      valid_before: true,
      reason: null,
      location: null,
      outcome: "valid",
      valid_after: true,
      type_changed: false,
      type_before: "Polygon",
      type_after: "Polygon",
      area_before: 1,
      area_after: 1,
      dropped_parts: 0,
      drop_reason: null,
      crosses_antimeridian: false,
    });
    expect(result.repaired).toEqual(square);
    expect(result.bbox).toEqual([0, 0, 1, 1]);
    expect(input).toEqual(square);
  });

  it("repairs a geometry mixing 2D and 3D positions as 2D (shapely's reading), and an all-3D one in 3D", () => {
    const positions = (g: unknown): number[] =>
      JSON.stringify(g)
        .match(/\[[^[\]]*\]/g)!
        .map((p) => (JSON.parse(p) as number[]).length);
    for (const method of ["linework", "structure"] as const) {
      const mixed = analyzeGeometry(
        geos,
        {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [2, 2, 5],
              [0, 2],
              [2, 0, 5],
              [0, 0],
            ],
          ],
        },
        { method, policy: "accept" },
      );
      expect(mixed.analysis).toMatchObject({ outcome: "repaired", type_after: "MultiPolygon", area_after: 2 });
      expect(new Set(positions(mixed.repaired))).toEqual(new Set([2])); // no invented z, no ring mixing both
      const full = analyzeGeometry(
        geos,
        {
          type: "Polygon",
          coordinates: [
            [
              [0, 0, 1],
              [2, 2, 5],
              [0, 2, 1],
              [2, 0, 5],
              [0, 0, 1],
            ],
          ],
        },
        { method, policy: "accept" },
      );
      expect(new Set(positions(full.repaired))).toEqual(new Set([3]));
    }
  });

  it("reads lossless-json numbers like plain ones", () => {
    const text = '{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}';
    const a = analyzeGeometry(geos, parse(text), { method: "linework", policy: "accept" });
    const b = analyzeGeometry(geos, JSON.parse(text), { method: "linework", policy: "accept" });
    expect(a).toEqual(b);
  });

  it("reprojects EPSG:3857 before validating and records the declared CRS", () => {
    const result = analyzeGeometry(
      geos,
      { type: "Point", coordinates: [1e7, 5e6] },
      {
        method: "linework",
        policy: "accept",
        crs: "urn:ogc:def:crs:EPSG::3857",
      },
    );
    expect(result.analysis).toMatchObject({ outcome: "valid", crs: "urn:ogc:def:crs:EPSG::3857" });
    expect(result.repaired).toEqual({ type: "Point", coordinates: [89.83152841195215, 40.91627447067577] });
  });

  it("drops out-of-range coordinates and unknown CRSs with a reason instead of throwing", () => {
    const far = analyzeGeometry(geos, { type: "Point", coordinates: [200, 0] }, { method: "linework", policy: "accept" });
    expect(far.analysis).toMatchObject({ outcome: "dropped", valid_before: null, location: [200, 0] });
    expect(far.analysis.drop_reason).toContain("out of range for EPSG:4326");
    const crs = analyzeGeometry(geos, square, { method: "linework", policy: "accept", crs: "EPSG:2154" });
    expect(crs.analysis.drop_reason).toContain('unsupported CRS "EPSG:2154"');
  });

  it("keeps a one-point line as its point under linework, as PostGIS does (clean.sql #4813.11), and drops it under structure", () => {
    const line = {
      type: "LineString",
      coordinates: [
        [1, 0],
        [NaN, NaN],
      ],
    };
    const linework = analyzeGeometry(geos, line, { method: "linework", policy: "accept" });
    expect(linework.repaired).toEqual({ type: "Point", coordinates: [1, 0] });
    expect(linework.analysis).toMatchObject({
      outcome: "repaired",
      type_before: "LineString",
      type_after: "Point",
      type_changed: true,
      dropped_parts: 0,
    });
    expect(linework.analysis.reason).toBe(
      "Invalid Coordinate (NaN, NaN) at coordinates[1]; Too few points in geometry component at or near point (1, 0)",
    );
    const structure = analyzeGeometry(geos, line, { method: "structure", policy: "accept" });
    expect(structure.analysis.outcome).toBe("dropped");
    const multi = analyzeGeometry(
      geos,
      {
        type: "MultiLineString",
        coordinates: [
          [
            [0, 0],
            [10, 0],
          ],
          [[20, 20]],
        ],
      },
      { method: "linework", policy: "accept" },
    );
    expect(multi.repaired).toEqual({
      type: "GeometryCollection",
      geometries: [
        { type: "Point", coordinates: [20, 20] },
        {
          type: "LineString",
          coordinates: [
            [0, 0],
            [10, 0],
          ],
        },
      ],
    });
  });

  it("keeps z through a repair", () => {
    const { repaired } = analyzeGeometry(
      geos,
      {
        type: "Polygon",
        coordinates: [
          [
            [10, 90, 1],
            [90, 10, 9],
            [90, 90, 9],
            [10, 10, 1],
            [10, 90, 1],
          ],
        ],
      },
      { method: "structure", policy: "accept" },
    );
    expect(repaired?.type).toBe("MultiPolygon");
    if (repaired?.type === "MultiPolygon") expect(repaired.coordinates[0]![0]![0]).toHaveLength(3);
  });

  it("repairs a 100k-vertex self-intersecting polygon with both methods", () => {
    const big = noisyPolygon(100_000, 25);
    for (const method of ["linework", "structure"] as const) {
      const { analysis } = analyzeGeometry(geos, big, { method, policy: "accept" });
      expect(analysis).toMatchObject({ valid_before: false, outcome: "repaired", valid_after: true });
      expect(analysis.reason).toContain("Self-intersection");
    }
  }, 60_000);
});

describe("analyzeGeometry over the corpus, under every method and policy", () => {
  const settings = REPAIR_METHODS.flatMap((method) => REPAIR_POLICIES.map((policy) => ({ method, policy })));
  const cases = loadCorpus();

  it("gives the same analysis without delivering the repair (deliver: false, a rule's dry run)", () => {
    let repairedSeen = 0;
    for (const c of cases) {
      for (const s of settings) {
        const opts = { ...s, ...(c.crs ? { crs: c.crs } : {}) };
        const full = analyzeGeometry(geos, structuredClone(c.geometry), opts);
        const lean = analyzeGeometry(geos, structuredClone(c.geometry), { ...opts, deliver: false });
        expect(lean.analysis, `${c.name} ${s.method}/${s.policy}`).toEqual(full.analysis);
        if (full.analysis.outcome === "repaired") {
          repairedSeen++;
          expect(full.repaired).not.toBeNull();
          expect(lean.repaired).toBeNull();
        } else expect(lean.repaired).toEqual(full.repaired);
      }
    }
    expect(repairedSeen).toBeGreaterThan(50);
  });

  it("judges a valid input alike whatever the repair (what lets a rule on another method read a valid record's stored analysis)", () => {
    const ring = (x: number, y: number, d: number) => [
      [x, y],
      [x + d, y],
      [x + d, y + d],
      [x, y + d],
      [x, y],
    ];
    const valid = [
      { name: "point", geometry: { type: "Point", coordinates: [13.4, 52.5] } },
      {
        name: "line",
        geometry: {
          type: "LineString",
          coordinates: [
            [0, 0],
            [1, 1],
            [2, 0],
          ],
        },
      },
      { name: "polygon with a hole", geometry: { type: "Polygon", coordinates: [ring(0, 0, 10), ring(2, 2, 2).reverse()] } },
      { name: "multipolygon", geometry: { type: "MultiPolygon", coordinates: [[ring(0, 0, 1)], [ring(5, 5, 1)]] } },
      {
        name: "collection",
        geometry: {
          type: "GeometryCollection",
          geometries: [
            { type: "Point", coordinates: [1, 1] },
            { type: "Polygon", coordinates: [ring(3, 3, 1)] },
          ],
        },
      },
    ];
    let validSeen = 0;
    for (const c of [...cases, ...valid] as { name: string; geometry: unknown; crs?: string }[]) {
      const opts = c.crs ? { crs: c.crs } : {};
      const [first, ...others] = settings.map((s) => analyzeGeometry(geos, structuredClone(c.geometry), { ...s, ...opts }));
      if (first!.analysis.outcome !== "valid") continue;
      validSeen++;
      for (const other of others) {
        expect(other.analysis.outcome, c.name).toBe("valid");
        expect({ ...other.analysis, method: "-", policy: "-" }, c.name).toEqual({ ...first!.analysis, method: "-", policy: "-" });
        expect(other.repaired, c.name).toEqual(first!.repaired);
      }
    }
    expect(validSeen).toBeGreaterThanOrEqual(valid.length + 4);
  });
});
