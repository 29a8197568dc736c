import type { SpatialAnalysis } from "../vocabulary/record";

/**
 * The signed relative area change of a repair (−0.472 for −47.2%), or null when there is no comparable area (the
 * input's area is zero or unknown). The repair warnings (lib/dead-letters/triage) and the triage rules (lib/rules)
 * both judge a repair by it.
 */
export function areaChange(a: Pick<SpatialAnalysis, "area_before" | "area_after">): number | null {
  if (a.area_before == null || a.area_after == null || a.area_before <= 0) return null;
  return (a.area_after - a.area_before) / a.area_before;
}
