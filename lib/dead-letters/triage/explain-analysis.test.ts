import { describe, expect, it } from "vitest";
import { explainAnalysis } from "./explain-analysis";
import type { SpatialAnalysis } from "../../vocabulary/record";

const base: SpatialAnalysis = {
  valid_before: false,
  reason: "Self-intersection at or near point (0.5, 0.5)",
  location: [0.5, 0.5],
  outcome: "repaired",
  valid_after: true,
  type_changed: true,
  type_before: "Polygon",
  type_after: "MultiPolygon",
  area_before: 0,
  area_after: 0.5,
  dropped_parts: 0,
  drop_reason: null,
  method: "linework",
  policy: "accept",
  crs: "EPSG:4326",
  crosses_antimeridian: false,
};

describe("explainAnalysis", () => {
  it("says why a bowtie was invalid and what the repair did, with the type change as a warning", () => {
    const e = explainAnalysis(base, 2);
    expect(e.validity).toBe("Invalid: Self-intersection at or near point (0.5, 0.5).");
    expect(e.warning).toBe("The type changed from Polygon to MultiPolygon (2 parts): consumers expecting a Polygon may reject it.");
    expect(e.repair.join(" ")).toContain("method linework");
    expect(e.repair.join(" ")).toContain("Area 0 → 0.5000 square degrees, from zero (the input's lobes cancelled out");
  });

  it("describes valid, dropped, reprojected and antimeridian records", () => {
    expect(explainAnalysis({ ...base, valid_before: true, reason: null, outcome: "valid", type_changed: false }).repair).toContain(
      "No repair was needed: the geometry is replayed as it is.",
    );
    const dropped = explainAnalysis({
      ...base,
      valid_before: null,
      reason: "Geometry is null",
      outcome: "dropped",
      drop_reason: "Geometry is null",
    });
    expect(dropped.validity).toBe("The geometry could not be used: Geometry is null.");
    expect(dropped.repair[0]).toContain("Dropped: Geometry is null.");
    const moved = explainAnalysis({
      ...base,
      crs: "EPSG:3857",
      crosses_antimeridian: true,
      type_changed: false,
      dropped_parts: 2,
      area_before: 1,
      area_after: 0.9,
    });
    expect(moved.repair.join(" ")).toMatch(/EPSG:3857.*180° meridian.*-10\.0%.*2 parts were dropped/);
  });
});
