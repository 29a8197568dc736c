import { describe, expect, it } from "vitest";
import { distanceKm, placeBox, placeClause } from "./place";

describe("place", () => {
  it("encloses a radius in a box and measures great-circle distance", () => {
    const [x1, y1, x2, y2] = placeBox({ type: "near", lon: 2.35, lat: 48.85, radiusKm: 10 });
    expect(distanceKm(2.35, 48.85, 2.35, y2)).toBeCloseTo(10, 0);
    expect(distanceKm(2.35, 48.85, x2, 48.85)).toBeGreaterThanOrEqual(9.9);
    expect(x1).toBeLessThan(2.35);
    expect(y1).toBeLessThan(48.85);
    expect(distanceKm(-0.1276, 51.5072, 2.3522, 48.8566)).toBeCloseTo(343.5, 0); // London–Paris
  });

  it("keeps boxes within EPSG:4326 near the poles", () => {
    expect(placeBox({ type: "near", lon: 0, lat: 89.9, radiusKm: 50 })).toEqual([-180, expect.any(Number), 180, 90]);
  });

  it("writes the box overlap and, for a radius, the distance refinement", () => {
    const values: unknown[] = [];
    const p = (v: unknown) => `$${values.push(v)}`;
    expect(placeClause({ type: "bbox", bbox: [1, 2, 3, 4] }, p)).toBe("d.bbox && box(point($1, $2), point($3, $4))");
    expect(values).toEqual([1, 2, 3, 4]);
    const sql = placeClause({ type: "near", lon: 1, lat: 2, radiusKm: 5 }, p, { indexable: false });
    expect(sql).not.toContain("&&");
    expect(sql).toContain("<= $7");
  });
});
