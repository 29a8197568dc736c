import { beforeAll, describe, expect, it } from "vitest";
import { analyzeGeometry } from "./analyze";
import { getGeos, type Geos } from "./geos";
import type { Geometry } from "./geojson";

let geos: Geos;
beforeAll(async () => {
  geos = await getGeos();
});

const bowtie: Geometry = {
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
const spike: Geometry = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [10, 0],
      [10, 5],
      [20, 5],
      [10, 5],
      [10, 10],
      [0, 10],
      [0, 0],
    ],
  ],
};
const flat: Geometry = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [1, 1],
      [2, 2],
      [0, 0],
    ],
  ],
};

/** Twice the signed area of a ring (shoelace): > 0 counter-clockwise, < 0 clockwise. */
const signedArea = (ring: number[][]): number => ring.slice(1).reduce((sum, [x, y], i) => sum + (ring[i]![0]! * y! - x! * ring[i]![1]!), 0);

function polygonsOf(g: Geometry | null): number[][][][] {
  if (!g) return [];
  if (g.type === "Polygon") return [g.coordinates];
  if (g.type === "MultiPolygon") return g.coordinates;
  if (g.type === "GeometryCollection") return g.geometries.flatMap(polygonsOf);
  return [];
}

describe("repair output follows RFC 7946 §3.1.6 (exterior rings counter-clockwise, holes clockwise)", () => {
  // A shell drawn clockwise with a hole drawn counter-clockwise, plus a self-crossing, so that GEOS repairs it.
  const holed: Geometry = {
    type: "Polygon",
    coordinates: [
      [
        [0, 0],
        [0, 10],
        [10, 10],
        [10, 0],
        [-2, 5],
        [0, 0],
      ],
      [
        [6, 6],
        [8, 6],
        [8, 8],
        [6, 8],
        [6, 6],
      ],
    ],
  };
  for (const method of ["linework", "structure"] as const) {
    it(`${method}: every repaired ring winds the RFC 7946 way; the area is GEOS's`, () => {
      for (const input of [bowtie, spike, holed]) {
        const { analysis, repaired } = analyzeGeometry(geos, input, { method, policy: "accept" });
        expect(analysis.outcome).toBe("repaired");
        const polygons = polygonsOf(repaired);
        expect(polygons.length).toBeGreaterThan(0);
        for (const [shell, ...holes] of polygons) {
          expect(signedArea(shell!)).toBeGreaterThan(0);
          for (const hole of holes) expect(signedArea(hole)).toBeLessThan(0);
        }
      }
      expect(polygonsOf(analyzeGeometry(geos, holed, { method, policy: "accept" }).repaired).some((p) => p.length > 1)).toBe(true);
    });
  }
});

describe("repair methods", () => {
  it("keeps both lobes of a bowtie (unlike buffer(0), which keeps one)", () => {
    for (const method of ["linework", "structure"] as const) {
      const { analysis } = analyzeGeometry(geos, bowtie, { method, policy: "accept" });
      expect(analysis).toMatchObject({
        outcome: "repaired",
        valid_after: true,
        type_changed: true,
        type_before: "Polygon",
        type_after: "MultiPolygon",
        area_before: 0,
        area_after: 0.5,
      });
    }
  });

  it("linework keeps a collapsed spike as a line; structure drops it", () => {
    expect(analyzeGeometry(geos, spike, { method: "linework", policy: "accept" }).repaired?.type).toBe("GeometryCollection");
    const structure = analyzeGeometry(geos, spike, { method: "structure", policy: "accept" });
    expect(structure.analysis).toMatchObject({ outcome: "repaired", type_changed: false, type_after: "Polygon", area_after: 100 });
  });
});

describe("repair policy", () => {
  it("accept keeps whatever the repair produced", () => {
    const { analysis, repaired } = analyzeGeometry(geos, flat, { method: "linework", policy: "accept" });
    expect(analysis).toMatchObject({ outcome: "repaired", type_after: "MultiLineString", dropped_parts: 0 });
    expect(repaired?.type).toBe("MultiLineString");
  });

  it("largest-part turns a split polygon back into its largest Polygon and counts what it dropped", () => {
    const uneven: Geometry = {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [4, 4],
          [4, 0],
          [0, 2],
          [0, 0],
        ],
      ],
    };
    const { analysis, repaired } = analyzeGeometry(geos, uneven, { method: "linework", policy: "largest-part" });
    expect(analysis).toMatchObject({ outcome: "repaired", type_changed: true, type_after: "Polygon", dropped_parts: 1 });
    expect(analysis.area_after).toBeGreaterThan(4);
    expect(repaired?.type).toBe("Polygon");
  });

  it("largest-part keeps a MultiPolygon multi, dropping only the non-polygonal leftovers", () => {
    const multi: Geometry = {
      type: "MultiPolygon",
      coordinates: [
        spike.coordinates,
        [
          [
            [30, 0],
            [31, 0],
            [31, 1],
            [30, 1],
            [30, 0],
          ],
        ],
      ],
    };
    const { analysis } = analyzeGeometry(geos, multi, { method: "linework", policy: "largest-part" });
    expect(analysis).toMatchObject({ outcome: "repaired", type_after: "MultiPolygon", dropped_parts: 1, area_after: 101 });
  });

  it("largest-part drops a polygon that collapsed to lines: there is no part of its dimension", () => {
    const { analysis } = analyzeGeometry(geos, flat, { method: "linework", policy: "largest-part" });
    expect(analysis).toMatchObject({ outcome: "dropped", valid_after: null });
    expect(analysis.drop_reason).toBe('Repair left no polygonal part (result is MultiLineString; policy "largest-part")');
  });

  it("drop refuses any type change but keeps same-type repairs", () => {
    const { analysis, repaired } = analyzeGeometry(geos, bowtie, { method: "linework", policy: "drop" });
    expect(analysis).toMatchObject({ outcome: "dropped", type_changed: true });
    expect(analysis.drop_reason).toBe('Repair changed the geometry type from Polygon to MultiPolygon (policy "drop")');
    expect(repaired).toBeNull();
    expect(analyzeGeometry(geos, spike, { method: "structure", policy: "drop" }).analysis.outcome).toBe("repaired");
  });

  it("drops what collapses to nothing under structure (keepCollapsed = false)", () => {
    const { analysis } = analyzeGeometry(geos, flat, { method: "structure", policy: "accept" });
    expect(analysis).toMatchObject({
      outcome: "dropped",
      drop_reason: "Repair produced an empty geometry (every part collapsed, or holes covered the whole shell)",
    });
  });

  it("drops a polygon whose hole is its shell under structure (the hole is subtracted), keeps the shell under linework", () => {
    const square = [
      [5, 45],
      [45, 45],
      [45, 5],
      [5, 5],
      [5, 45],
    ];
    const holed = { type: "Polygon", coordinates: [square, square] };
    expect(analyzeGeometry(geos, holed, { method: "structure", policy: "accept" }).analysis).toMatchObject({
      outcome: "dropped",
      drop_reason: expect.stringContaining("holes covered the whole shell"),
    });
    expect(analyzeGeometry(geos, holed, { method: "linework", policy: "accept" }).analysis).toMatchObject({
      outcome: "repaired",
      area_after: 1600,
    });
  });
});
