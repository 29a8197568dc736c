import { describe, expect, it } from "vitest";
import { distanceKm, lonGap, placeBox, placeBranches, placeClause } from "./place";

describe("place", () => {
  it("encloses a radius in a box and measures great-circle distance", () => {
    const [x1, y1, x2, y2] = placeBox({ type: "near", lon: 2.35, lat: 48.85, radiusKm: 10 });
    expect(distanceKm(2.35, 48.85, 2.35, y2)).toBeCloseTo(10, 0);
    expect(distanceKm(2.35, 48.85, x2, 48.85)).toBeGreaterThanOrEqual(9.9);
    expect(x1).toBeLessThan(2.35);
    expect(y1).toBeLessThan(48.85);
    expect(distanceKm(-0.1276, 51.5072, 2.3522, 48.8566)).toBeCloseTo(343.5, 0); // London–Paris
  });

  it("keeps latitudes within EPSG:4326 and spans every longitude near the poles", () => {
    expect(placeBox({ type: "near", lon: 0, lat: 89.9, radiusKm: 50 })).toEqual([-180, expect.any(Number), 180, 90]);
  });

  it("lets a radius by the antimeridian run past 180 instead of cutting it off there", () => {
    const [x1, , x2] = placeBox({ type: "near", lon: 179.9, lat: -17, radiusKm: 50 });
    expect(x1).toBeCloseTo(179.43, 2);
    expect(x2).toBeCloseTo(180.37, 2);
  });

  it("measures the longitude gap to a box around the globe, stored unwrapped or not", () => {
    expect(lonGap(2, 1, 3)).toBe(0);
    expect(lonGap(-179, 178, 182)).toBe(0); // Fiji's box, stored 178..182, holds -179 (= 181)
    expect(lonGap(179.9, -179.5, -179)).toBeCloseTo(0.6, 9); // the short way, over 180
    expect(lonGap(-170, 178, 182)).toBeCloseTo(8, 9);
    expect(lonGap(170, 178, 182)).toBeCloseTo(8, 9);
    expect(lonGap(0, 10, 20)).toBe(10);
  });

  it("writes the box overlap and, for a radius, the distance refinement", () => {
    const values: unknown[] = [];
    const p = (v: unknown) => `$${values.push(v)}`;
    expect(placeClause({ type: "bbox", bbox: [1, 2, 3, 4] }, p)).toBe(
      "(d.bbox && box(point($1, $2), point($3, $4)) OR d.bbox && box(point($5, $6), point($7, $8)))",
    );
    expect(values).toEqual([1, 2, 3, 4, 361, 2, 363, 4]);
    const sql = placeClause({ type: "near", lon: 1, lat: 2, radiusKm: 5 }, p, { indexable: false });
    expect(sql).not.toContain("&&");
    expect(sql).toContain("<= $11");
  });

  it("splits a place into UNION ALL branches with one box overlap each", () => {
    const values: unknown[] = [];
    const branches = placeBranches({ type: "near", lon: 179.9, lat: -17, radiusKm: 50 }, (v) => `$${values.push(v)}`);
    expect(branches).toHaveLength(2); // the two sides of ±180°
    expect(branches.map((b) => b.split("&&").length - 1)).toEqual([1, 2]);
  });
});
