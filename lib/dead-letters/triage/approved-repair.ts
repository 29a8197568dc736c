import { sha256Hex } from "../../afc/hash";
import { canonicalJson } from "../../json/canonical";
import type { JsonValue } from "../../json/value";
import { analyzeGeometry, type AnalyzeOptions, type AnalyzeResult } from "../../spatial/analyze";
import { deliveredFrom, type Delivered } from "../../spatial/delivered-geometry";
import type { Geos } from "../../spatial/geos";
import type { ApprovedRepair, RepairMethod, RepairPolicy } from "../../vocabulary/record";
import type { GeometryLimits } from "../../spatial/geometry-limits";
import { isFeaturePayload } from "../../spatial/feature-payload";

// What a spatial record's replay sends, computed the one way both the approval and the replay engine use: the
// approval pins its digest, the engine recomputes it and refuses to send anything else. One function, so the
// two cannot drift apart (the engine's revalidate.ts calls deliveredGeometry).

export type { Delivered };

/** Where GEOS runs: here (the replay engine's process) or elsewhere (a request's work, on a worker thread). */
export type Analyze = (geometry: unknown, opts: AnalyzeOptions) => Promise<AnalyzeResult>;

type Repair = { method: RepairMethod; policy: RepairPolicy; limits?: GeometryLimits };

const analyzeOptions = (repair: Repair): AnalyzeOptions => ({
  method: repair.method,
  policy: repair.policy,
  ...(repair.limits ? { limits: repair.limits } : {}),
});

const NOT_A_FEATURE: Delivered = { ok: false, reason: "payload is not a GeoJSON Feature", result: null };

/** The geometry a replay of this Feature delivers with this repair: the input when valid, the repair otherwise. */
export function deliveredGeometry(geos: Geos, payload: unknown, repair: Repair): Delivered {
  if (!isFeaturePayload(payload)) return NOT_A_FEATURE;
  return deliveredFrom(payload.geometry, analyzeGeometry(geos, payload.geometry, analyzeOptions(repair)));
}

/** deliveredGeometry with GEOS run by `analyze` (for a request: on a worker thread, analyzeOffThread). */
export async function deliveredGeometryBy(analyze: Analyze, payload: unknown, repair: Repair): Promise<Delivered> {
  if (!isFeaturePayload(payload)) return NOT_A_FEATURE;
  return deliveredFrom(payload.geometry, await analyze(payload.geometry, analyzeOptions(repair)));
}

/** SHA-256 (hex) of a geometry's RFC 8785 canonical JSON: key order and spacing never change it. */
export function geometryDigest(geometry: JsonValue): string {
  return sha256Hex(canonicalJson(geometry));
}

type Pinned = { ok: true; pin: ApprovedRepair; delivered: Extract<Delivered, { ok: true }> } | { ok: false; reason: string };

function pinOf(delivered: Delivered, repair: { method: RepairMethod; policy: RepairPolicy }, acknowledged: string[]): Pinned {
  if (!delivered.ok) return delivered;
  const pin: ApprovedRepair = {
    method: repair.method,
    policy: repair.policy,
    digest: geometryDigest(delivered.geometry),
    outcome: delivered.outcome,
    ...(acknowledged.length > 0 ? { acknowledged } : {}),
  };
  return { ok: true, pin, delivered };
}

/** The pin an approval stores for this payload and repair, or why nothing deliverable comes out of it. */
export function pinRepair(
  geos: Geos,
  payload: unknown,
  repair: { method: RepairMethod; policy: RepairPolicy },
  acknowledged: string[] = [],
): Pinned {
  return pinOf(deliveredGeometry(geos, payload, repair), repair, acknowledged);
}

/** pinRepair with GEOS run by `analyze` (an approval's request: on a worker thread, analyzeOffThread). */
export async function pinRepairBy(
  analyze: Analyze,
  payload: unknown,
  repair: { method: RepairMethod; policy: RepairPolicy },
  acknowledged: string[] = [],
): Promise<Pinned> {
  return pinOf(await deliveredGeometryBy(analyze, payload, repair), repair, acknowledged);
}
