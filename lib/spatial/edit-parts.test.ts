import { describe, expect, it } from "vitest";
import { applyPart, closeRing, toEditParts } from "./edit-parts";
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

describe("close ring", () => {
  const open = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 1],
  ];

  it("offers an unclosed ring of 3+ positions and closes it by appending its first position", () => {
    const g: Geometry = { type: "Polygon", coordinates: [open] };
    const split = toEditParts(g);
    expect(split.parts).toEqual([]);
    expect(split.closable).toEqual([[0]]);
    const closed = closeRing(g, [0]);
    expect(closed).toEqual({ type: "Polygon", coordinates: [[...open, [0, 0]]] });
    expect(toEditParts(closed).parts.map((p) => p.path)).toEqual([[0]]);
    expect(toEditParts(closed).closable).toEqual([]);
    expect(g.coordinates[0]).toHaveLength(4); // the input is not changed
  });

  it("closes the right ring inside a MultiPolygon and a GeometryCollection, leaving the rest", () => {
    const mp: Geometry = { type: "MultiPolygon", coordinates: [[sq(0)], [sq(2), open]] };
    expect(toEditParts(mp).closable).toEqual([[1, 1]]);
    const closed = closeRing(mp, [1, 1]) as { coordinates: number[][][][] };
    expect(closed.coordinates[1]![1]).toEqual([...open, [0, 0]]);
    expect(closed.coordinates[0]).toEqual([sq(0)]);
    const gc: Geometry = {
      type: "GeometryCollection",
      geometries: [
        { type: "Point", coordinates: [5, 5] },
        { type: "Polygon", coordinates: [open] },
      ],
    };
    expect(toEditParts(gc).closable).toEqual([[1, 0]]);
    expect((closeRing(gc, [1, 0]) as { geometries: { coordinates: unknown }[] }).geometries[1]!.coordinates).toEqual([[...open, [0, 0]]]);
  });

  it("does not offer or change a ring of 2 positions, a closed ring or a path that is no ring", () => {
    const two: Geometry = { type: "Polygon", coordinates: [open.slice(0, 2)] };
    expect(toEditParts(two).closable).toEqual([]);
    expect(closeRing(two, [0])).toBe(two);
    const done: Geometry = { type: "Polygon", coordinates: [sq(0)] };
    expect(closeRing(done, [0])).toBe(done);
    expect(closeRing(done, [3])).toBe(done);
    const line: Geometry = { type: "LineString", coordinates: open };
    expect(closeRing(line, [0])).toBe(line);
  });
});
