import { describe, expect, it } from "vitest";
import { findOutOfRange, resolveCrs, toWgs84 } from "./crs";
import type { Geometry } from "./geojson";

describe("resolveCrs", () => {
  it.each([
    [undefined, "EPSG:4326"],
    [null, "EPSG:4326"],
    ["EPSG:4326", "EPSG:4326"],
    ["urn:ogc:def:crs:OGC:1.3:CRS84", "EPSG:4326"],
    ["epsg:3857", "EPSG:3857"],
    ["EPSG:900913", "EPSG:3857"],
    ["urn:ogc:def:crs:EPSG::3857", "EPSG:3857"],
    [{ type: "name", properties: { name: "urn:ogc:def:crs:EPSG::3857" } }, "EPSG:3857"],
    ["EPSG:32633", "EPSG:32633"],
    ["epsg:32601", "EPSG:32601"],
    ["urn:ogc:def:crs:EPSG::32756", "EPSG:32756"],
    ["EPSG:32760", "EPSG:32760"],
    // every spelling of a code, not only those in a list
    ["urn:ogc:def:crs:EPSG::900913", "EPSG:3857"],
    ["urn:ogc:def:crs:EPSG::3785", "EPSG:3857"],
    ["urn:ogc:def:crs:EPSG:9.8.6:4326", "EPSG:4326"],
    ["http://www.opengis.net/def/crs/EPSG/0/3857", "EPSG:3857"],
    ["https://www.opengis.net/def/crs/EPSG/0/32633", "EPSG:32633"],
    ["OGC:CRS84", "EPSG:4326"],
    ["CRS84", "EPSG:4326"],
    ["urn:ogc:def:crs:OGC::CRS84", "EPSG:4326"],
    ["http://www.opengis.net/def/crs/OGC/1.3/CRS84", "EPSG:4326"],
    [" EPSG:4326 ", "EPSG:4326"],
  ])("%j → %s", (declared, crs) => {
    expect(resolveCrs(declared)).toMatchObject({ ok: true, crs });
  });

  it("keeps the declared spelling for the record", () => {
    expect(resolveCrs("EPSG:900913")).toEqual({ ok: true, crs: "EPSG:3857", declared: "EPSG:900913" });
  });

  it("names the supported CRSs when one is unknown", () => {
    const result = resolveCrs("EPSG:2154");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/unsupported CRS "EPSG:2154"; supported: EPSG:4326 .*EPSG:3857/);
    for (const name of [
      "EPSG:43260",
      "urn:ogc:def:crs:EPSG::2154",
      "http://www.opengis.net/def/crs/EPSG/0/2154",
      "OGC:CRS83",
      "EPSG:",
      "EPSG:４３２６",
    ]) {
      expect(resolveCrs(name).ok, name).toBe(false);
    }
    expect(resolveCrs(4326).ok).toBe(false);
  });

  it.each(["EPSG:32600", "EPSG:32661", "EPSG:32700", "EPSG:32761", "EPSG:32800", "EPSG:3260"])("refuses %s (not a UTM zone)", (name) => {
    expect(resolveCrs(name).ok).toBe(false);
  });
});

const point = (x: number, y: number): Geometry => ({ type: "Point", coordinates: [x, y] });

describe("findOutOfRange", () => {
  it("checks lon/lat in EPSG:4326", () => {
    expect(findOutOfRange(point(180, -90), "EPSG:4326")).toBeNull();
    expect(findOutOfRange(point(180.0000001, 0), "EPSG:4326")?.reason).toContain("out of range for EPSG:4326");
    expect(findOutOfRange(point(0, 91), "EPSG:4326")?.location).toEqual([0, 91]);
  });

  it("accepts the Web Mercator square and producers' ±85.06° latitude clamp", () => {
    expect(findOutOfRange(point(-20037508.342789244, 20048966.1), "EPSG:3857")).toBeNull();
    expect(findOutOfRange(point(20037600, 0), "EPSG:3857")?.reason).toContain("out of range for EPSG:3857");
    expect(findOutOfRange(point(0, 20100000), "EPSG:3857")).not.toBeNull();
  });

  it("checks UTM eastings and northings per hemisphere", () => {
    expect(findOutOfRange(point(500000, 4649776), "EPSG:32633")).toBeNull();
    expect(findOutOfRange(point(500000, 6252080), "EPSG:32756")).toBeNull();
    expect(findOutOfRange(point(1200000, 0), "EPSG:32633")?.reason).toBe(
      "Coordinate (1200000, 0) is out of range for EPSG:32633 (UTM zone 33N: x 0–1000000 m, y 0–9400000 m)",
    );
    expect(findOutOfRange(point(500000, -5), "EPSG:32633")).not.toBeNull();
    expect(findOutOfRange(point(500000, 500000), "EPSG:32756")?.reason).toContain("UTM zone 56S");
    // degrees sent under a projected CRS by mistake land near the false origin: caught for the south
    expect(findOutOfRange(point(151.2, -33.9), "EPSG:32756")).not.toBeNull();
  });

  it("leaves non-finite coordinates to the validity checks", () => {
    expect(findOutOfRange(point(Infinity, 0), "EPSG:4326")).toBeNull();
  });
});

describe("toWgs84", () => {
  it("reprojects Web Mercator (proj4) and clamps edge noise to ±180", () => {
    const g: Geometry = {
      type: "LineString",
      coordinates: [
        [0, 0],
        [1e7, 5e6],
        [20037508.342789244, 0],
      ],
    };
    toWgs84(g, "EPSG:3857");
    if (g.type !== "LineString") throw new Error("type changed");
    expect(g.coordinates[0]).toEqual([0, 0]);
    expect(g.coordinates[1]![0]).toBeCloseTo(89.83152841195215, 12);
    expect(g.coordinates[1]![1]).toBeCloseTo(40.91627447067577, 12);
    expect(g.coordinates[2]).toEqual([180, 0]);
  });

  it("reprojects WGS 84 / UTM zones, north and south", () => {
    const g: Geometry = {
      type: "MultiPoint",
      coordinates: [
        [500000, 0],
        [166021.4431, 0],
      ],
    };
    toWgs84(g, "EPSG:32633");
    if (g.type !== "MultiPoint") throw new Error("type changed");
    expect(g.coordinates[0]![0]).toBeCloseTo(15, 9); // zone 33's central meridian
    expect(g.coordinates[0]![1]).toBeCloseTo(0, 9);
    const south = point(500000, 10000000);
    toWgs84(south, "EPSG:32756");
    if (south.type !== "Point") throw new Error("type changed");
    expect(south.coordinates[0]).toBeCloseTo(153, 9); // zone 56's central meridian, at the equator
    expect(south.coordinates[1]).toBeCloseTo(0, 9);
    const edge = point(166021.4431, 0);
    toWgs84(edge, "EPSG:32631"); // the equator at 0°, the west edge of zone 31 (central meridian 3°E)
    if (edge.type !== "Point") throw new Error("type changed");
    expect(edge.coordinates[0]).toBeCloseTo(0, 6);
  });

  it("is the identity for EPSG:4326", () => {
    const g = point(1, 2);
    expect(toWgs84(g, "EPSG:4326")).toBe(g);
  });
});
