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
  ])("%j → %s", (declared, crs) => {
    expect(resolveCrs(declared)).toMatchObject({ ok: true, crs });
  });

  it("keeps the declared spelling for the record", () => {
    expect(resolveCrs("EPSG:900913")).toEqual({ ok: true, crs: "EPSG:3857", declared: "EPSG:900913" });
  });

  it("names the supported CRSs when one is unknown", () => {
    const result = resolveCrs("EPSG:2154");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/unsupported CRS "EPSG:2154"; supported: EPSG:4326, .*EPSG:3857/);
    expect(resolveCrs(4326).ok).toBe(false);
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

  it("leaves non-finite coordinates to the validity checks", () => {
    expect(findOutOfRange(point(Infinity, 0), "EPSG:4326")).toBeNull();
  });
});

describe("toWgs84", () => {
  it("reprojects Web Mercator (proj4) and clamps edge noise to ±180", () => {
    const g: Geometry = { type: "LineString", coordinates: [[0, 0], [1e7, 5e6], [20037508.342789244, 0]] };
    toWgs84(g, "EPSG:3857");
    if (g.type !== "LineString") throw new Error("type changed");
    expect(g.coordinates[0]).toEqual([0, 0]);
    expect(g.coordinates[1]![0]).toBeCloseTo(89.83152841195215, 12);
    expect(g.coordinates[1]![1]).toBeCloseTo(40.91627447067577, 12);
    expect(g.coordinates[2]).toEqual([180, 0]);
  });

  it("is the identity for EPSG:4326", () => {
    const g = point(1, 2);
    expect(toWgs84(g, "EPSG:4326")).toBe(g);
  });
});
