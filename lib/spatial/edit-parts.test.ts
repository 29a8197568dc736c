import { describe, expect, it } from "vitest";
import { applyPart, toEditParts } from "./edit-parts";
import type { Geometry } from "./geojson";

const sq = (x: number) => [
  [x, 0],
  [x + 1, 0],
  [x + 1, 1],
  [x, 1],
  [x, 0],
];

describe("edit parts", () => {
  it("splits a polygon with a hole into one shape per ring and writes an edit back in place", () => {
    const g: Geometry = {
      type: "Polygon",
      coordinates: [
        sq(0),
        [
          [0.2, 0.2],
          [0.4, 0.2],
          [0.4, 0.4],
          [0.2, 0.2],
        ],
      ],
    };
    const { parts, skipped } = toEditParts(g);
    expect(parts.map((p) => [p.kind, p.path])).toEqual([
      ["polygon", [0]],
      ["polygon", [1]],
    ]);
    expect(skipped).toEqual([]);
    const moved = [
      [0.3, 0.3],
      [0.4, 0.2],
      [0.4, 0.4],
      [0.3, 0.3],
    ];
    expect(applyPart(g, [1], moved)).toEqual({ type: "Polygon", coordinates: [sq(0), moved] });
  });

  it("addresses multi-part geometries and collections", () => {
    const g: Geometry = {
      type: "GeometryCollection",
      geometries: [
        { type: "MultiPolygon", coordinates: [[sq(0)], [sq(5)]] },
        {
          type: "MultiLineString",
          coordinates: [
            [
              [0, 0],
              [1, 1],
            ],
          ],
        },
        { type: "MultiPoint", coordinates: [[9, 9]] },
      ],
    };
    const { parts } = toEditParts(g);
    expect(parts.map((p) => p.path)).toEqual([
      [0, 0, 0],
      [0, 1, 0],
      [1, 0],
      [2, 0],
    ]);
    const out = applyPart(g, [0, 1, 0], sq(7)) as Extract<Geometry, { type: "GeometryCollection" }>;
    expect(out.geometries[0]).toEqual({ type: "MultiPolygon", coordinates: [[sq(0)], [sq(7)]] });
    expect(applyPart(g, [2, 0], [[8, 8]])).toMatchObject({ geometries: [{}, {}, { coordinates: [[8, 8]] }] });
  });

  it("skips shapes the editor cannot take, saying why", () => {
    const { parts, skipped } = toEditParts({
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 1],
        ],
      ],
    });
    expect(parts).toEqual([]);
    expect(skipped[0]).toContain("not closed");
  });
});
