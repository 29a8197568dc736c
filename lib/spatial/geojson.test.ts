import { parse } from "lossless-json";
import { describe, expect, it } from "vitest";
import { bboxOf, isEmptyGeometry, parseGeometry } from "./geojson";

describe("parseGeometry", () => {
  it("parses every geometry type into fresh arrays", () => {
    const input = {
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
    const result = parseGeometry(input);
    expect(result).toEqual({ ok: true, geometry: input });
    if (result.ok && result.geometry.type === "Polygon") expect(result.geometry.coordinates[0]).not.toBe(input.coordinates[0]);
    for (const g of [
      { type: "Point", coordinates: [1, 2] },
      { type: "MultiPoint", coordinates: [[1, 2]] },
      {
        type: "LineString",
        coordinates: [
          [1, 2],
          [3, 4],
        ],
      },
      {
        type: "MultiLineString",
        coordinates: [
          [
            [1, 2],
            [3, 4],
          ],
        ],
      },
      {
        type: "MultiPolygon",
        coordinates: [
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0],
            ],
          ],
        ],
      },
      { type: "GeometryCollection", geometries: [{ type: "Point", coordinates: [1, 2] }] },
    ]) {
      expect(parseGeometry(g)).toEqual({ ok: true, geometry: g });
    }
  });

  it("reads lossless-json numbers, keeps z and drops members beyond it", () => {
    const value = parse('{"type":"LineString","coordinates":[[1.5,2,3,99],[0.12345678901234567890123,4]]}');
    expect(parseGeometry(value)).toEqual({
      ok: true,
      geometry: {
        type: "LineString",
        coordinates: [
          [1.5, 2, 3],
          [0.12345678901234568, 4],
        ],
      },
    });
  });

  it("keeps non-finite numbers for validate.ts to report", () => {
    const result = parseGeometry(JSON.parse('{"type":"Point","coordinates":[1e999,0]}'));
    expect(result).toEqual({ ok: true, geometry: { type: "Point", coordinates: [Infinity, 0] } });
  });

  it.each([
    [null, "must be a GeoJSON object"],
    ["POLYGON((0 0,1 0,1 1,0 0))", "must be a GeoJSON object"],
    [{ type: "Circle", coordinates: [0, 0] }, 'Unknown geometry type "Circle"'],
    [{ coordinates: [0, 0] }, "Unknown geometry type null"],
    [{ type: "Point", coordinates: [1, "2"] }, 'Coordinate at coordinates[1] is not a number (found string "2")'],
    [{ type: "Point", coordinates: [1] }, "Position at coordinates has 1 number(s)"],
    [
      {
        type: "Polygon",
        coordinates: [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 0],
        ],
      },
      "Expected a position (array of numbers) at coordinates[0][0], found number 0",
    ],
    [
      {
        type: "MultiPolygon",
        coordinates: [
          [
            [0, 0],
            [1, 0],
          ],
        ],
      },
      "Expected a position (array of numbers) at coordinates[0][0][0], found number 0",
    ],
    [{ type: "LineString", coordinates: [[0, 0], null] }, "Expected a position (array of numbers) at coordinates[1], found null"],
    [{ type: "Polygon" }, "Expected an array of rings at coordinates, found nothing (the member is missing)"],
    [{ type: "GeometryCollection", geometries: [{ type: "Point" }] }, "geometries[0].coordinates"],
  ])("rejects %j", (value, message) => {
    const result = parseGeometry(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(message);
  });

  it("refuses collections nested deeper than 32 levels", () => {
    let g: unknown = { type: "Point", coordinates: [0, 0] };
    for (let i = 0; i < 40; i++) g = { type: "GeometryCollection", geometries: [g] };
    const result = parseGeometry(g);
    expect(result.ok).toBe(false);
  });
});

describe("bboxOf / isEmptyGeometry", () => {
  it("ignores non-finite coordinates", () => {
    expect(
      bboxOf({
        type: "MultiPoint",
        coordinates: [
          [1, 5],
          [Infinity, 0],
          [3, -2],
        ],
      }),
    ).toEqual([1, -2, 3, 5]);
    expect(bboxOf({ type: "Point", coordinates: [] })).toBeNull();
  });

  it("knows empty geometries", () => {
    expect(isEmptyGeometry({ type: "Polygon", coordinates: [] })).toBe(true);
    expect(isEmptyGeometry({ type: "GeometryCollection", geometries: [{ type: "Point", coordinates: [] }] })).toBe(true);
    expect(isEmptyGeometry({ type: "Point", coordinates: [0, 0] })).toBe(false);
  });
});
