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
    expect(e.warning).toBe("The type changes from Polygon to MultiPolygon: consumers expecting a Polygon may reject it.");
    expect(e.repair).toContain("The type changed from Polygon to MultiPolygon (2 parts).");
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

  it("says what linework keeps — not every area the rings enclose — and warns of a star's lost centre", () => {
    const star = { ...base, area_before: 1.47e-4, area_after: 7.76e-5 };
    const e = explainAnalysis(star, { repairedParts: 5, selfIntersections: 5 });
    expect(e.repair.join(" ")).not.toContain("keeps every area");
    expect(e.repair.join(" ")).toContain("enclose an odd number of times");
    expect(e.validity).toContain("crosses itself at 5 points");
    expect(e.warnings.map((w) => w.kind)).toEqual(["type", "area"]);
    expect(e.warnings[1]!.message).toContain("−47.2%");
  });

  it("says structure keeps shells minus holes with overlaps merged; the threshold is configurable", () => {
    const e = explainAnalysis(
      { ...base, method: "structure", type_changed: false, area_before: 1, area_after: 0.95 },
      { areaChangeWarn: 0.01 },
    );
    expect(e.repair.join(" ")).toContain("keeps each shell minus its holes, overlapping shells merged");
    expect(e.warnings.map((w) => w.kind)).toEqual(["area"]);
    expect(explainAnalysis({ ...base, type_changed: false, area_before: 1, area_after: 0.95 }).warnings).toEqual([]);
  });
});
