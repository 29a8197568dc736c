import type { SpatialAnalysis } from "../../vocabulary/record";
import { DEFAULT_AREA_CHANGE_WARN, repairWarnings, type RepairWarning } from "./repair-warnings";

// The spatial analysis in words for the detail page: why the geometry is (in)valid and what the repair did.
// Pure and client-safe; the wording avoids GIS jargon where a plain phrase says the same.

// What each method keeps, said so that its losses can be predicted: "every area the rings enclose" was wrong for
// linework, which drops what is enclosed twice (a star's centre, where two polygons overlap).
export const METHOD: Record<SpatialAnalysis["method"], string> = {
  linework:
    "linework (keeps the areas the rings enclose an odd number of times: where a ring crosses itself or parts overlap, what is enclosed twice — a star's centre, the overlap of two squares — is dropped; a bowtie becomes its two triangles)",
  structure:
    "structure (keeps each shell minus its holes, overlapping shells merged into one, like JTS's GeometryFixer: a star keeps its centre)",
};

const POLICY: Record<SpatialAnalysis["policy"], string> = {
  accept: "accept (keep the whole repaired result)",
  "largest-part": "largest-part (keep only the largest part)",
  drop: "drop (do not replay a record that needed repair)",
};

function area(n: number): string {
  if (n === 0) return "0";
  return n < 0.001 ? n.toExponential(2) : n.toFixed(4);
}

function change(before: number, after: number): string {
  if (before === 0) return after === 0 ? "unchanged" : "from zero";
  const pct = ((after - before) / before) * 100;
  return Math.abs(pct) < 0.05 ? "unchanged" : `${pct > 0 ? "+" : ""}${pct.toFixed(1)}%`;
}

export interface Explanation {
  validity: string;
  repair: string[];
  /** the first of `warnings` (kept for callers that show one) */
  warning: string | null;
  /** what an approval must acknowledge: a large area change, a type change (repair-warnings.ts) */
  warnings: RepairWarning[];
}

export interface ExplainOptions {
  /** parts of the repaired geometry, when known */
  repairedParts?: number | null;
  /** where the boundary crosses itself (self-intersections.ts): GEOS's reason names only the first */
  selfIntersections?: number;
  /** the area change beyond which a repair is a warning (REDRIVE_AREA_CHANGE_WARN) */
  areaChangeWarn?: number;
}

export function explainAnalysis(a: SpatialAnalysis, opts: ExplainOptions | number | null = {}): Explanation {
  const o: ExplainOptions = typeof opts === "number" || opts === null ? { repairedParts: opts } : opts;
  const repairedParts = o.repairedParts ?? null;
  const crossings = o.selfIntersections ?? 0;
  // "The geometry" is the current payload's: the one received, or the analyst's edit (the server re-analyses it).
  const validity =
    a.valid_before === null
      ? `The geometry could not be used: ${a.reason ?? "unknown problem"}.`
      : a.valid_before
        ? "Valid: GEOS finds no problem."
        : `Invalid: ${a.reason ?? "reason not recorded"}${crossings > 1 ? ` — the boundary crosses itself at ${crossings} points (GEOS names the first; all are marked on the map)` : ""}.`;
  const repair: string[] = [];
  const warnings = repairWarnings(a, o.areaChangeWarn ?? DEFAULT_AREA_CHANGE_WARN);
  if (a.crs && a.crs !== "EPSG:4326") repair.push(`Declared in ${a.crs}; reprojected to longitude/latitude (EPSG:4326).`);
  if (a.crosses_antimeridian) repair.push("Crosses the 180° meridian: repaired as one shape, then cut at ±180° into parts (RFC 7946).");
  if (a.outcome === "valid") {
    repair.push("No repair was needed: the geometry is replayed as it is.");
  } else if (a.outcome === "repaired") {
    repair.push(`Repaired with GEOS make-valid, method ${METHOD[a.method]}, policy ${POLICY[a.policy]}.`);
    if (a.type_changed) {
      const parts = repairedParts !== null && repairedParts > 1 ? ` (${repairedParts} parts)` : "";
      repair.push(`The type changed from ${a.type_before ?? "?"} to ${a.type_after ?? "?"}${parts}.`);
    } else {
      repair.push(`The type stayed ${a.type_after ?? a.type_before ?? "the same"}.`);
    }
    if (a.area_before !== null && a.area_after !== null) {
      const cancel =
        a.area_before === 0 && a.area_after > 0
          ? " (the input's lobes cancelled out to zero area — typical of a self-intersecting ring)"
          : "";
      repair.push(`Area ${area(a.area_before)} → ${area(a.area_after)} square degrees, ${change(a.area_before, a.area_after)}${cancel}.`);
    }
  } else {
    repair.push(`Dropped: ${a.drop_reason ?? a.reason ?? "the geometry is unusable"}. Nothing is replayed until the payload is edited.`);
  }
  if (a.dropped_parts > 0) {
    repair.push(
      `${a.dropped_parts} part${a.dropped_parts === 1 ? " was" : "s were"} dropped${a.drop_reason && a.outcome !== "dropped" ? `: ${a.drop_reason}` : " (collapsed to lines or points, or removed by the policy)"}.`,
    );
  }
  return { validity, repair, warning: warnings[0]?.message ?? null, warnings };
}
