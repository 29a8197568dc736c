import { describe, expect, it } from "vitest";
import type { Geometry } from "./geojson";
import { selfIntersections, MAX_MARKED } from "./self-intersections";

/** The demo data's star (lib/seed/generate-spatial.ts): a pentagram drawn as one ring through every other tip. */
function star(x = 0, y = 0, d = 1): Geometry {
  const pts = [0, 2, 4, 1, 3, 0].map((k) => {
    const a = Math.PI / 2 + (k * 2 * Math.PI) / 5;
    return [x + d * Math.cos(a), y + d * Math.sin(a)];
  });
  return { type: "Polygon", coordinates: [pts] };
}

const square = (x: number, y: number, s: number) => [
  [x, y],
  [x + s, y],
  [x + s, y + s],
  [x, y + s],
  [x, y],
];

describe("selfIntersections", () => {
  it("marks all five crossings of a pentagram, not just GEOS's first", () => {
    const { points, truncated } = selfIntersections(star());
    expect(truncated).toBe(false);
    expect(points).toHaveLength(5);
    // The crossings are the inner pentagon's corners: all at the same distance from the centre.
    const r = points.map(([x, y]) => Math.hypot(x, y));
    for (const d of r) expect(d).toBeCloseTo(r[0]!, 9);
    expect(r[0]!).toBeLessThan(1);
  });

  it("marks the crossing of a bowtie", () => {
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
    expect(selfIntersections(bowtie).points).toEqual([[0.5, 0.5]]);
  });

  it("marks where two overlapping polygons of a MultiPolygon cross", () => {
    const g: Geometry = { type: "MultiPolygon", coordinates: [[square(0, 0, 2)], [square(1, 1, 2)]] };
    expect(selfIntersections(g).points).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it("marks nothing on a valid polygon, nor where a hole touches its shell at a point", () => {
    expect(selfIntersections({ type: "Polygon", coordinates: [square(0, 0, 1)] }).points).toEqual([]);
    const hole = [
      [0, 1],
      [1, 1.5],
      [1, 0.5],
      [0, 1],
    ];
    expect(selfIntersections({ type: "Polygon", coordinates: [square(0, 0, 2), hole] }).points).toEqual([]);
    expect(
      selfIntersections({
        type: "LineString",
        coordinates: [
          [0, 0],
          [1, 1],
          [1, 0],
          [0, 1],
        ],
      }).points,
    ).toEqual([]);
  });

  it("marks a ring touching itself at a vertex away from its neighbouring edges", () => {
    const g: Geometry = {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [2, 0],
          [1, 1],
          [2, 2],
          [0, 2],
          [1, 1],
          [0, 0],
        ],
      ],
    };
    expect(selfIntersections(g).points).toEqual([[1, 1]]);
  });

  it("stops at MAX_MARKED points and says so", () => {
    // A zigzag ring crossing a long horizontal edge many times.
    const pts: number[][] = [[0, 0]];
    for (let i = 0; i < 2 * MAX_MARKED + 10; i++) pts.push([i + 0.5, i % 2 === 0 ? 1 : -1]);
    pts.push([2 * MAX_MARKED + 20, 5], [0, 5], [0, 0]);
    const ring = [...pts.slice(0, 1), [2 * MAX_MARKED + 20, 0], ...pts.slice(1)];
    const result = selfIntersections({ type: "Polygon", coordinates: [ring] });
    expect(result.points.length).toBe(MAX_MARKED);
    expect(result.truncated).toBe(true);
  });
});
