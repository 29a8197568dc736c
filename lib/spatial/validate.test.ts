import { beforeAll, describe, expect, it } from "vitest";
import { getGeos, type Geos } from "./geos";
import { withGeos } from "./geos-io";
import type { Geometry } from "./geojson";
import { geosValidity, inspectStructure } from "./validate";

let geos: Geos;
beforeAll(async () => {
  geos = await getGeos();
});

describe("inspectStructure", () => {
  it("closes an unclosed ring without touching the input", () => {
    const input: Geometry = {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 1],
        ],
      ],
    };
    const { geometry, report } = inspectStructure(input);
    expect(report.issues).toEqual([
      {
        code: "unclosed_ring",
        reason: "Unclosed ring at coordinates[0]: first point (0, 0) differs from last point (0, 1)",
        location: [0, 0],
      },
    ]);
    expect(geometry).toEqual({
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
    });
    expect(input.coordinates[0]).toHaveLength(4);
  });

  it("removes NaN/Infinity positions (as JTS GeometryFixer does) and says where the first one was", () => {
    const { geometry, report } = inspectStructure({
      type: "Polygon",
      coordinates: [
        [
          [10, 90],
          [90, NaN],
          [90, 10],
          [10, 10],
          [10, 90],
        ],
      ],
    });
    expect(report.issues[0]).toEqual({
      code: "invalid_coordinate",
      reason: "Invalid Coordinate (90, NaN) at coordinates[0][1]",
      location: [10, 90],
    });
    expect(geometry).toEqual({
      type: "Polygon",
      coordinates: [
        [
          [10, 90],
          [90, 10],
          [10, 10],
          [10, 90],
        ],
      ],
    });
  });

  it("drops rings and lines with too few points; a collapsed shell takes its holes with it", () => {
    const hole = inspectStructure({
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 0],
        ],
        [
          [1, 1],
          [2, 1],
        ],
      ],
    });
    expect(hole.geometry).toEqual({
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 0],
        ],
      ],
    });
    expect(hole.report.removedParts).toBe(1);
    expect(hole.report.issues.map((i) => i.code)).toEqual(["unclosed_ring", "too_few_points"]);
    expect(hole.report.issues[1]?.reason).toBe("Too few points in ring at coordinates[1]: 3, at least 4 are required");

    const shell = inspectStructure({
      type: "MultiPolygon",
      coordinates: [
        [
          [
            [0, 0],
            [1, 0],
          ],
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 0],
          ],
        ],
        [
          [
            [5, 5],
            [6, 5],
            [6, 6],
            [5, 5],
          ],
        ],
      ],
    });
    expect(shell.geometry).toEqual({
      type: "MultiPolygon",
      coordinates: [
        [
          [
            [5, 5],
            [6, 5],
            [6, 6],
            [5, 5],
          ],
        ],
      ],
    });

    const line = inspectStructure({
      type: "MultiLineString",
      coordinates: [
        [[0, 0]],
        [
          [0, 0],
          [1, 1],
        ],
        [[NaN, 0]],
      ],
    });
    expect(line.geometry).toEqual({
      type: "MultiLineString",
      coordinates: [
        [
          [0, 0],
          [0, 0],
        ],
        [
          [0, 0],
          [1, 1],
        ],
      ],
    });
    expect(line.report.removedParts).toBe(1);
    expect(line.report.issues[0]?.reason).toBe("Too few points in LineString at coordinates[0]: 1, at least 2 are required");
  });

  it("pads a one-point line to a zero-length line, as PostGIS does, so GEOS keeps the point (clean.sql #4813.11)", () => {
    const nan = inspectStructure({
      type: "LineString",
      coordinates: [
        [1, 0],
        [NaN, NaN],
      ],
    });
    expect(nan.geometry).toEqual({
      type: "LineString",
      coordinates: [
        [1, 0],
        [1, 0],
      ],
    });
    expect(nan.report.removedParts).toBe(0);
    expect(nan.report.issues.map((i) => i.code)).toEqual(["invalid_coordinate", "too_few_points"]);
    expect(inspectStructure({ type: "LineString", coordinates: [[1, 0]] }).geometry).toEqual({
      type: "LineString",
      coordinates: [
        [1, 0],
        [1, 0],
      ],
    });
  });

  it("pads a there-and-back ring (A, B, A) to four points as shapely does, so GEOS repairs it (PostGIS clean.sql RT 11, 12)", () => {
    const hole = inspectStructure({
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 0],
        ],
        [
          [1, 1],
          [2, 1],
          [1, 1],
        ],
      ],
    });
    expect(hole.geometry).toEqual({
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 0],
        ],
        [
          [1, 1],
          [2, 1],
          [1, 1],
          [1, 1],
        ],
      ],
    });
    expect(hole.report.removedParts).toBe(0);
    expect(hole.report.issues[0]?.reason).toBe("Too few points in ring at coordinates[1]: 3, at least 4 are required");
    // One point, or one point twice: padded the same way (GEOS makes it the point; PostGIS clean.sql PG 1).
    expect(inspectStructure({ type: "Polygon", coordinates: [[[0, 0]]] }).geometry).toEqual({
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 0],
        ],
      ],
    });
    expect(
      inspectStructure({
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [0, 0],
          ],
        ],
      }).geometry,
    ).toEqual({
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 0],
        ],
      ],
    });
    // A ring we had to close first is not padded: two points are not a ring anyone sent back and forth.
    expect(
      inspectStructure({
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 0],
          ],
        ],
      }).geometry,
    ).toEqual({ type: "Polygon", coordinates: [] });
  });

  it("leaves valid input alone and empty geometries empty", () => {
    const square: Geometry = {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 0],
        ],
      ],
    };
    expect(inspectStructure(square)).toEqual({ geometry: square, report: { issues: [], removedParts: 0 } });
    expect(inspectStructure({ type: "Polygon", coordinates: [] }).geometry).toEqual({ type: "Polygon", coordinates: [] });
  });
});

describe("geosValidity", () => {
  const check = (g: Geometry) => withGeos(geos, g, (ptr) => geosValidity(geos, ptr));

  it("explains like shapely's explain_validity, in words, with the location", () => {
    expect(
      check({
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
      }),
    ).toEqual({
      valid: false,
      reason: "Self-intersection at or near point (0.5, 0.5)",
      location: [0.5, 0.5],
    });
    expect(
      check({
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [10, 0],
            [10, 10],
            [0, 10],
            [0, 0],
          ],
          [
            [15, 15],
            [15, 20],
            [20, 20],
            [20, 15],
            [15, 15],
          ],
        ],
      }),
    ).toMatchObject({ valid: false, reason: "Hole lies outside shell at or near point (15, 15)" });
  });

  it("uses OGC rules: a self-touching ring forming a hole is invalid", () => {
    expect(
      check({
        type: "Polygon",
        coordinates: [
          [
            [7, 25],
            [4, 50],
            [10, 40],
            [7, 25],
            [8, 35],
            [6, 35],
            [7, 25],
          ],
        ],
      }),
    ).toMatchObject({ valid: false, reason: "Ring Self-intersection at or near point (7, 25)" });
  });

  it("says valid with no reason", () => {
    expect(check({ type: "Point", coordinates: [1, 2] })).toEqual({ valid: true, reason: null, location: null });
  });
});
