import type { JsonValue } from "../json/value";
import type { AnalyzeResult } from "./analyze";
import { geometryToJson } from "./geojson";

// What a spatial record's replay sends for one analysis of its geometry, computed the one way the approval, the
// replay engine and a rule deciding at arrival all use (lib/dead-letters/triage/approved-repair.ts wraps it).

export type Delivered =
  | { ok: true; geometry: JsonValue; outcome: "valid" | "repaired"; result: AnalyzeResult }
  | { ok: false; reason: string; result: AnalyzeResult | null };

/** What a Feature's analysis delivers: the input when valid, the repair otherwise, or why nothing. */
export function deliveredFrom(geometry: unknown, result: AnalyzeResult): Delivered {
  const { analysis, repaired } = result;
  if (analysis.outcome === "dropped" || !repaired) {
    return { ok: false, reason: `geometry: ${analysis.drop_reason ?? analysis.reason ?? "not repairable"}`, result };
  }
  if (analysis.outcome === "valid") return { ok: true, geometry: (geometry as JsonValue | undefined) ?? null, outcome: "valid", result };
  // Repaired: deliver the repair, never the invalid input.
  return { ok: true, geometry: geometryToJson(repaired), outcome: "repaired", result };
}
