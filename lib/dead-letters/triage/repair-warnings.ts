import type { SpatialAnalysis } from "../../vocabulary/record";
import { areaChange } from "../../spatial/area-change";

// A repair that changes what the geometry is — its type, or a large share of its area — is a decision the analyst
// must see and acknowledge, not a bullet among others: linework drops a star's centre pentagon (−47% area) and an
// overlap of two squares (−25%) without complaint. Pure and client-safe: the record page, the list's `a`, the
// bulk dry run and the server's approval all call it with the same threshold (REDRIVE_AREA_CHANGE_WARN).

/** Default: an area change beyond 10% of the input's area asks for acknowledgement. */
export const DEFAULT_AREA_CHANGE_WARN = 0.1;

export type RepairWarningKind = "area" | "type";

export interface RepairWarning {
  kind: RepairWarningKind;
  message: string;
}

export { areaChange };

const pct = (x: number) => `${x > 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}%`;

/** The warnings an approval of this repair must acknowledge; empty for a valid geometry or a dropped one. */
export function repairWarnings(a: SpatialAnalysis, threshold: number = DEFAULT_AREA_CHANGE_WARN): RepairWarning[] {
  if (a.outcome !== "repaired") return [];
  const out: RepairWarning[] = [];
  if (a.type_changed) {
    out.push({
      kind: "type",
      message: `The type changes from ${a.type_before ?? "?"} to ${a.type_after ?? "?"}: consumers expecting a ${a.type_before ?? "single type"} may reject it.`,
    });
  }
  const change = areaChange(a);
  if (change !== null && Math.abs(change) > threshold) {
    out.push({
      kind: "area",
      // "Drops part of what was received" would be wrong for structure on a star: it keeps the whole outline, and
      // the change is the centre GEOS counted twice in the input's area. Say what is compared instead.
      message: `The area changes by ${pct(change)} (more than ${Math.round(threshold * 1000) / 10}%) from the input's as GEOS measures it, where what a ring or overlapping parts enclose twice counts twice: compare the maps to see what the repair keeps.`,
    });
  } else if (a.area_before === 0 && (a.area_after ?? 0) > 0) {
    // A self-intersecting ring whose lobes cancel has no area to compare with: whatever the repair keeps is new.
    out.push({
      kind: "area",
      message: "The input's area cancels out to zero (its lobes wind opposite ways): the repaired area cannot be compared.",
    });
  }
  return out;
}
