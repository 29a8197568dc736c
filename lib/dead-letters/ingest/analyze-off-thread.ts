import { analyzeGeometry, type AnalyzeOptions, type AnalyzeResult } from "../../spatial/analyze";
import { DEFAULT_GEOMETRY_LIMITS, geometryOverLimits } from "../../spatial/geometry-limits";
import { getGeos } from "../../spatial/geos";
import { sharedNormalizePool } from "./normalize-pool";
import { otherRepairOf } from "./rule-facts";
import type { OtherRepairFacts } from "../store/arrival-facts";
import type { RepairMethod, RepairPolicy } from "../../vocabulary/record";

/**
 * analyzeGeometry for a request (an analyst's edit), on the ingest threads when there are any: GEOS on a
 * geometry of up to the vertex limit takes ~0.5 s, which the thread answering requests must not spend. A
 * geometry past the limits is refused here, without GEOS and without copying it to a thread.
 */
export async function analyzeOffThread(geometry: unknown, opts: AnalyzeOptions): Promise<AnalyzeResult> {
  const threads = sharedNormalizePool();
  if (!threads || geometryOverLimits(geometry, opts.limits ?? DEFAULT_GEOMETRY_LIMITS) !== null) {
    return analyzeGeometry(await getGeos(), geometry, opts);
  }
  return threads.analyze(geometry, opts);
}

/**
 * A rule's other repair of stored Features' geometries (JSON text; null: the payload is not a Feature), for a dry
 * run or an apply: on the ingest threads, split so that every core runs GEOS, when there are any. Null where the
 * payload is not a Feature. `digest: false` (a dry run): no digest of what the repair delivers
 * (OtherRepairFacts.digest null).
 */
export async function otherRepairsOffThread(
  geometries: (string | null)[],
  repair: { method: RepairMethod; policy: RepairPolicy },
  opts: { digest?: boolean } = {},
): Promise<(OtherRepairFacts | null)[]> {
  const threads = sharedNormalizePool();
  if (threads) return threads.ruleRepairs(geometries, repair, opts);
  const geos = await getGeos();
  return geometries.map((g) => (g === null ? null : otherRepairOf(JSON.parse(g), repair, geos, opts)));
}
