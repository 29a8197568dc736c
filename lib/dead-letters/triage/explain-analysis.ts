import type { SpatialAnalysis } from "../../vocabulary/record";

// The spatial analysis in words for the detail page: why the geometry is (in)valid and what the repair did.
// Pure and client-safe; the wording avoids GIS jargon where a plain phrase says the same.

const METHOD: Record<SpatialAnalysis["method"], string> = {
  linework: "linework (keeps every area the rings enclose; a bowtie becomes its two triangles)",
  structure: "structure (rebuilds polygons from their shells and holes, like JTS's GeometryFixer)",
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
  warning: string | null;
}

export function explainAnalysis(a: SpatialAnalysis, repairedParts: number | null = null): Explanation {
  // "The geometry" is the current payload's: the one received, or the analyst's edit (the server re-analyses it).
  const validity =
    a.valid_before === null
      ? `The geometry could not be used: ${a.reason ?? "unknown problem"}.`
      : a.valid_before
        ? "Valid: GEOS finds no problem."
        : `Invalid: ${a.reason ?? "reason not recorded"}.`;
  const repair: string[] = [];
  let warning: string | null = null;
  if (a.crs && a.crs !== "EPSG:4326") repair.push(`Declared in ${a.crs}; reprojected to longitude/latitude (EPSG:4326).`);
  if (a.crosses_antimeridian) repair.push("Crosses the 180° meridian: repaired as one shape, then cut at ±180° into parts (RFC 7946).");
  if (a.outcome === "valid") {
    repair.push("No repair was needed: the geometry is replayed as it is.");
  } else if (a.outcome === "repaired") {
    repair.push(`Repaired with GEOS make-valid, method ${METHOD[a.method]}, policy ${POLICY[a.policy]}.`);
    if (a.type_changed) {
      const parts = repairedParts !== null && repairedParts > 1 ? ` (${repairedParts} parts)` : "";
      warning = `The type changed from ${a.type_before ?? "?"} to ${a.type_after ?? "?"}${parts}: consumers expecting a ${a.type_before ?? "single"} may reject it.`;
      repair.push(warning);
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
  return { validity, repair, warning };
}
