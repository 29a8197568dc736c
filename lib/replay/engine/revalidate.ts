import { validateTap } from "../../afc/tap-schema";
import type { RepairMethod, RepairPolicy } from "../../vocabulary/record";
import type { JsonValue } from "@/lib/json/value";
import { deliveredGeometry, geometryDigest } from "../../dead-letters/triage/approved-repair";
import type { Geos } from "../../spatial/geos";
import type { GeometryLimits } from "../../spatial/geometry-limits";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// Step 1 of every item: is the record (as snapshotted into the batch, possibly edited by an analyst before
// approval) still deliverable? Spatial: the geometry's validity, repaired with the repair the item replays with
// (replay-repair.ts: the approved one, or the batch's); AFC: the tap schema. What comes out is what the sink
// receives. With an approved digest, a different geometry is not sent: the analyst never saw it.

export type Revalidation =
  /** `repair`: spatial only, what the repair did to the geometry (the payload sent holds the result) */
  { ok: true; payload: JsonValue; repair?: "valid" | "repaired" } | { ok: false; reason: string; review?: true };

export interface RevalidateOptions {
  /** required for spatial records */
  geos: Geos | null;
  method: RepairMethod;
  policy: RepairPolicy;
  /** a geometry past these fails re-validation without GEOS (default DEFAULT_GEOMETRY_LIMITS) */
  limits?: GeometryLimits;
  /** the digest of the approved geometry (approved-repair.ts); null: no check (approved before pins, or overridden) */
  digest?: string | null;
}

export function revalidate(kind: DeadLetterKind, payload: unknown, opts: RevalidateOptions): Revalidation {
  if (payload === null || payload === undefined) return { ok: false, reason: "the record has no payload (purged?)" };
  if (kind === "afc") {
    const tap = validateTap(payload);
    return tap.ok ? { ok: true, payload: payload as JsonValue } : { ok: false, reason: `tap schema: ${tap.reason}` };
  }
  if (!opts.geos) throw new Error("revalidate: spatial records need GEOS");
  const delivered = deliveredGeometry(opts.geos, payload, opts);
  if (!delivered.ok) return { ok: false, reason: delivered.reason };
  if (opts.digest && geometryDigest(delivered.geometry) !== opts.digest) {
    return {
      ok: false,
      review: true,
      reason: `the ${opts.method}/${opts.policy} repair now gives a different geometry than the one approved: review it again`,
    };
  }
  const feature = payload as { [key: string]: JsonValue };
  return delivered.outcome === "valid"
    ? { ok: true, payload: feature, repair: "valid" }
    : { ok: true, payload: { ...feature, geometry: delivered.geometry }, repair: "repaired" };
}
