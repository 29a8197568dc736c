import "server-only";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { getEnv } from "../../env";
import { analyzeOffThread } from "../ingest/analyze-off-thread";
import type { RepairMethod, RepairPolicy } from "../../vocabulary/record";
import { geometryDigest, deliveredGeometryBy } from "./approved-repair";
import { repairWarnings } from "./repair-warnings";
import type { RepairPreview } from "../contract/repair-preview";
import { notFound } from "../query/detail";

// What approving a spatial record with a given repair would pin and replay (GET /api/dead-letters/{id}/repair-preview):
// the record page shows it as the analyst changes method or policy, and sends its digest with the approval, so what
// is approved is what was seen. Computed with the same function the replay engine uses (approved-repair.ts).

export async function repairPreview(
  db: pg.Pool | pg.PoolClient,
  id: string,
  chosen: { method?: RepairMethod; policy?: RepairPolicy },
): Promise<RepairPreview> {
  const { rows } = await db.query<{ kind: string; payload: unknown; analysis: { method: RepairMethod; policy: RepairPolicy } | null }>(
    "SELECT kind, payload, analysis FROM dead_letter WHERE id = $1",
    [id],
  );
  const row = rows[0];
  if (!row) throw notFound(id);
  if (row.kind !== "spatial" || row.payload === null || !row.analysis) {
    throw new AppError("validation_failed", "id: only a spatial record with a payload has a repair to preview", {
      issues: [{ path: "id", message: "is not a spatial record with a payload" }],
    });
  }
  const sourceDefault = { method: row.analysis.method, policy: row.analysis.policy };
  const repair = { method: chosen.method ?? sourceDefault.method, policy: chosen.policy ?? sourceDefault.policy };
  // GEOS on a worker thread: a 200,000-vertex preview takes a second, which the thread answering requests must not spend.
  const delivered = await deliveredGeometryBy(analyzeOffThread, row.payload, repair);
  if (!delivered.result) {
    throw new AppError("validation_failed", `payload: ${delivered.ok ? "unreadable" : delivered.reason}`, {
      issues: [{ path: "payload", message: "is not a GeoJSON Feature" }],
    });
  }
  const threshold = getEnv().REDRIVE_AREA_CHANGE_WARN;
  const analysis = delivered.result.analysis;
  return {
    ...repair,
    sourceDefault,
    analysis,
    geometry: delivered.ok ? delivered.geometry : null,
    digest: delivered.ok ? geometryDigest(delivered.geometry) : null,
    warnings: repairWarnings(analysis, threshold),
    areaChangeWarn: threshold,
  };
}
