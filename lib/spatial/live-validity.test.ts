import { describe, expect, it } from "vitest";
import { liveValidity } from "./live-validity";

describe("liveValidity (jsts in the browser)", () => {
  it("explains a bowtie with its location, like GEOS", () => {
    expect(
      liveValidity({
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
  });

  it("accepts a valid square and a collection of valid members", () => {
    expect(
      liveValidity({
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
      }).valid,
    ).toBe(true);
    expect(liveValidity({ type: "GeometryCollection", geometries: [{ type: "Point", coordinates: [1, 2] }] }).valid).toBe(true);
  });

  it("reports nested shells, unclosed rings and non-geometries", () => {
    const nested = liveValidity({
      type: "MultiPolygon",
      coordinates: [
        [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 1],
            [0, 0],
          ],
        ],
        [
          [
            [0.2, 0.2],
            [0.5, 0.2],
            [0.5, 0.5],
            [0.2, 0.2],
          ],
        ],
      ],
    });
    expect(nested.reason).toBe("Nested shells at or near point (0.2, 0.2)");
    expect(
      liveValidity({
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 1],
          ],
        ],
      }),
    ).toMatchObject({ valid: false, reason: "Points of LinearRing do not form a closed linestring" });
    expect(liveValidity(null)).toMatchObject({ valid: null, reason: "Geometry is null" });
    expect(liveValidity({ type: "Polygn", coordinates: [] }).valid).toBeNull();
  });
});
