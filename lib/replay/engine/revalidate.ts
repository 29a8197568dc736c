import { validateTap } from "../../afc/tap-schema";
import type { RepairMethod, RepairPolicy } from "../../vocabulary/record";
import type { JsonValue } from "@/lib/json/value";
import { analyzeGeometry } from "../../spatial/analyze";
import { geometryToJson } from "../../spatial/geojson";
import type { Geos } from "../../spatial/geos";
import type { GeometryLimits } from "../../spatial/geometry-limits";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// Step 1 of every item: is the record (as snapshotted into the batch, possibly edited by an analyst before
// approval) still deliverable? Spatial: the geometry's validity, repaired with the batch's method and policy;
// AFC: the tap schema. What comes out is what the sink receives.

export type Revalidation = { ok: true; payload: JsonValue } | { ok: false; reason: string };

export interface RevalidateOptions {
  /** required for spatial records */
  geos: Geos | null;
  method: RepairMethod;
  policy: RepairPolicy;
  /** a geometry past these fails re-validation without GEOS (default DEFAULT_GEOMETRY_LIMITS) */
  limits?: GeometryLimits;
}

function isObject(v: unknown): v is { [key: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function revalidate(kind: DeadLetterKind, payload: unknown, opts: RevalidateOptions): Revalidation {
  if (payload === null || payload === undefined) return { ok: false, reason: "the record has no payload (purged?)" };
  if (kind === "afc") {
    const tap = validateTap(payload);
    return tap.ok ? { ok: true, payload: payload as JsonValue } : { ok: false, reason: `tap schema: ${tap.reason}` };
  }
  if (!isObject(payload) || payload.type !== "Feature") return { ok: false, reason: "payload is not a GeoJSON Feature" };
  if (!opts.geos) throw new Error("revalidate: spatial records need GEOS");
  const result = analyzeGeometry(opts.geos, payload.geometry, {
    method: opts.method,
    policy: opts.policy,
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
  const { analysis, repaired } = result;
  if (analysis.outcome === "dropped" || !repaired) {
    return { ok: false, reason: `geometry: ${analysis.drop_reason ?? analysis.reason ?? "not repairable"}` };
  }
  if (analysis.outcome === "valid") return { ok: true, payload };
  // Repaired: deliver the repair, never the invalid input.
  return { ok: true, payload: { ...payload, geometry: geometryToJson(repaired) } };
}
