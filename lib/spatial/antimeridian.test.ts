import { beforeAll, describe, expect, it } from "vitest";
import { analyzeGeometry } from "./analyze";
import { findCrossing, unwrapGeometry } from "./antimeridian";
import { getGeos, type Geos } from "./geos";
import { forEachPath, type Geometry } from "./geojson";

let geos: Geos;
beforeAll(async () => {
  geos = await getGeos();
});

const fiji: Geometry = {
  type: "Polygon",
  coordinates: [
    [
      [178, -17],
      [-179, -17],
      [-179, -16],
      [178, -16],
      [178, -17],
    ],
  ],
};

function allWithinWorld(g: Geometry): boolean {
  let ok = true;
  forEachPath(g, (path) => {
    for (const p of path) if (Math.abs(p[0]!) > 180 || Math.abs(p[1]!) > 90) ok = false;
  });
  return ok;
}

describe("antimeridian", () => {
  it("recognises a longitude jump over 180° but not edges along the map's seam or pole", () => {
    expect(findCrossing(fiji)?.reason).toBe("Crosses the antimeridian between (178, -17) and (-179, -17)");
    const antarctica: Geometry = {
      type: "Polygon",
      coordinates: [
        [
          [-180, -90],
          [-180, -84],
          [0, -82],
          [180, -84],
          [180, -90],
          [-180, -90],
        ],
      ],
    };
    expect(findCrossing(antarctica)).toBeNull();
    expect(
      findCrossing({
        type: "MultiPoint",
        coordinates: [
          [179, 0],
          [-179, 0],
        ],
      }),
    ).toBeNull();
  });

  it("unwraps longitudes into a continuous range", () => {
    expect(unwrapGeometry(fiji)).toEqual({
      type: "Polygon",
      coordinates: [
        [
          [178, -17],
          [181, -17],
          [181, -16],
          [178, -16],
          [178, -17],
        ],
      ],
    });
  });

  it("splits a crossing polygon into a MultiPolygon at ±180 instead of a band around the world", () => {
    const { analysis, repaired, bbox } = analyzeGeometry(geos, fiji, { method: "linework", policy: "accept" });
    expect(analysis).toMatchObject({
      crosses_antimeridian: true,
      valid_before: false,
      outcome: "repaired",
      type_after: "MultiPolygon",
      area_after: 3,
    });
    expect(analysis.reason).toContain("antimeridian");
    expect(analysis.area_before).toBe(3); // the true shape, not the 357°-wide band (area 357)
    expect(repaired?.type).toBe("MultiPolygon");
    expect(allWithinWorld(repaired!)).toBe(true);
    expect(bbox).toEqual([178, -17, -179, -16]); // RFC 7946 §5.2: west > east
  });

  it("splits a crossing line into a MultiLineString", () => {
    const { repaired, analysis } = analyzeGeometry(
      geos,
      {
        type: "LineString",
        coordinates: [
          [170, 50],
          [-170, 52],
          [-160, 55],
        ],
      },
      { method: "structure", policy: "accept" },
    );
    expect(analysis.outcome).toBe("repaired");
    expect(repaired).toEqual({
      type: "MultiLineString",
      coordinates: [
        [
          [170, 50],
          [180, 51],
        ],
        [
          [-180, 51],
          [-170, 52],
          [-160, 55],
        ],
      ],
    });
  });

  it("closes a ring that encircles a pole along that pole", () => {
    const { repaired, analysis } = analyzeGeometry(
      geos,
      {
        type: "Polygon",
        coordinates: [
          [
            [0, -70],
            [90, -72],
            [180, -71],
            [-90, -73],
            [0, -70],
          ],
        ],
      },
      { method: "linework", policy: "accept" },
    );
    expect(analysis.outcome).toBe("repaired");
    expect(repaired?.type).toBe("Polygon");
    let touchesPole = false;
    forEachPath(repaired!, (path) => {
      if (path.some((p) => p[1] === -90)) touchesPole = true;
    });
    expect(touchesPole).toBe(true);
  });

  it("drops a crossing sliver that leaves nothing on either side of the cut, instead of an empty 'repair'", () => {
    const e = 179.99999999999997;
    for (const method of ["linework", "structure"] as const) {
      const { analysis, repaired } = analyzeGeometry(
        geos,
        {
          type: "Polygon",
          coordinates: [
            [
              [e, 10],
              [-e, 10],
              [-e, 20],
              [e, 20],
              [e, 10],
            ],
          ],
        },
        { method, policy: "accept" },
      );
      expect(analysis).toMatchObject({ crosses_antimeridian: true, outcome: "dropped", valid_after: null });
      expect(analysis.drop_reason).toContain("empty geometry");
      expect(repaired).toBeNull();
    }
  });

  it("lets the repair policy see the type change", () => {
    const dropped = analyzeGeometry(geos, fiji, { method: "linework", policy: "drop" });
    expect(dropped.analysis.outcome).toBe("dropped");
    expect(dropped.analysis.drop_reason).toContain("from Polygon to MultiPolygon");
  });
});
