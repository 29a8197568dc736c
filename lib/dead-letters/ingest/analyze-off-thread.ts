import { analyzeGeometry, type AnalyzeOptions, type AnalyzeResult } from "../../spatial/analyze";
import { DEFAULT_GEOMETRY_LIMITS, geometryOverLimits } from "../../spatial/geometry-limits";
import { getGeos } from "../../spatial/geos";
import { sharedNormalizePool } from "./normalize-pool";

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
