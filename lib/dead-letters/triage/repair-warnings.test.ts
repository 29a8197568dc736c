import { describe, expect, it } from "vitest";
import type { SpatialAnalysis } from "../../vocabulary/record";
import { areaChange, repairWarnings } from "./repair-warnings";

const repaired: SpatialAnalysis = {
  valid_before: false,
  reason: "Self-intersection at or near point (0.5, 0.5)",
  location: [0.5, 0.5],
  outcome: "repaired",
  valid_after: true,
  type_changed: false,
  type_before: "Polygon",
  type_after: "Polygon",
  area_before: 1,
  area_after: 1,
  dropped_parts: 0,
  drop_reason: null,
  method: "linework",
  policy: "accept",
  crs: "EPSG:4326",
  crosses_antimeridian: false,
};

describe("repairWarnings", () => {
  it("warns of a star's lost centre (−47.2%) and its type change", () => {
    const star = { ...repaired, type_changed: true, type_after: "MultiPolygon", area_before: 1, area_after: 0.528 };
    const w = repairWarnings(star);
    expect(w.map((x) => x.kind)).toEqual(["type", "area"]);
    expect(w[1]!.message).toContain("−47.2%");
    expect(w[1]!.message).toContain("more than 10%");
  });

  it("warns of two overlapping squares' −25%, and not of a change within the threshold", () => {
    expect(repairWarnings({ ...repaired, area_before: 8, area_after: 7 }).map((x) => x.kind)).toEqual(["area"]);
    expect(repairWarnings({ ...repaired, area_before: 1, area_after: 0.95 })).toEqual([]);
    expect(repairWarnings({ ...repaired, area_before: 1, area_after: 0.95 }, 0.01).map((x) => x.kind)).toEqual(["area"]);
  });

  it("says a bowtie's cancelled area cannot be compared; nothing for valid or dropped geometries", () => {
    expect(repairWarnings({ ...repaired, area_before: 0, area_after: 0.5 })[0]!.message).toContain("cancels out");
    expect(repairWarnings({ ...repaired, outcome: "valid", type_changed: true, area_after: 0 })).toEqual([]);
    expect(repairWarnings({ ...repaired, outcome: "dropped", type_changed: true })).toEqual([]);
  });

  it("areaChange is relative to the input's area", () => {
    expect(areaChange({ area_before: 4, area_after: 3 })).toBe(-0.25);
    expect(areaChange({ area_before: 0, area_after: 3 })).toBeNull();
    expect(areaChange({ area_before: null, area_after: 3 })).toBeNull();
  });
});
