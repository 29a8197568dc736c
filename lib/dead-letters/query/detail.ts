import "server-only";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { utcMicrosSql } from "../../time/instant";
import { originalGeometry } from "../../spatial/received";
import { encodeCursor } from "./cursor";
import { AUDIT_ACTION } from "../decisions";
import type { DeadLetterDetail } from "../record-schemas";
import { ApprovedRepairSchema, type ApprovedRepair, type SpatialAnalysis } from "../../vocabulary/record";
import type { JsonValue } from "@/lib/json/value";

// One dead letter with everything the detail page shows: the raw envelope as received, the working payload,
// the analysis and repaired geometry, and every failure attempt in order.

type Db = pg.Pool | pg.PoolClient;

export const DETAIL_COLUMNS = `d.id::text AS id, d.kind, d.source, d.idempotency_key, d.entity_key, d.event_id, d.device_id,
  d.source_message_id, ${utcMicrosSql("d.observed_at")} AS observed_at, d.first_seen_at, d.last_failed_at, d.updated_at, d.raw_envelope, d.payload,
  d.first_failure_reason, d.reason, d.reason_group, d.failure_class, d.class_reason, d.status, d.replay_count,
  d.failure_count, d.version, d.analysis, d.repaired_geometry, d.approved_repair, d.origin,
  EXISTS (SELECT 1 FROM audit_event a WHERE a.target_type = 'dead_letter' AND a.target_id = d.id::text AND a.action = '${AUDIT_ACTION.edit}') AS edited`;

export interface DetailRow {
  id: string;
  kind: DeadLetterDetail["kind"];
  source: string;
  idempotency_key: string | null;
  entity_key: string | null;
  event_id: string | null;
  device_id: string | null;
  source_message_id: string | null;
  /** to the microsecond (lib/time/instant.ts): the record's cursor goes back into the list query */
  observed_at: string;
  first_seen_at: Date;
  last_failed_at: Date;
  updated_at: Date;
  raw_envelope: string | null;
  payload: JsonValue | null;
  first_failure_reason: string;
  reason: string;
  reason_group: string;
  failure_class: DeadLetterDetail["failureClass"];
  class_reason: string | null;
  status: DeadLetterDetail["status"];
  replay_count: number;
  failure_count: number;
  version: number;
  analysis: SpatialAnalysis | null;
  repaired_geometry: JsonValue | null;
  approved_repair: unknown;
  origin: JsonValue | null;
  /** an analyst edited the payload (audited): only then can the received geometry differ from the payload's */
  edited: boolean;
}

/** A stored pin, or null when absent or unreadable (an unreadable one pins nothing: the batch's repair applies). */
function readApprovedRepair(value: unknown): ApprovedRepair | null {
  const parsed = ApprovedRepairSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

interface FailureRow {
  attempt: number;
  at: Date;
  reason: string;
  origin: string;
  batch_id: string | null;
}

export function toDetail(r: DetailRow, failures: FailureRow[]): DeadLetterDetail {
  const observedAt = r.observed_at;
  return {
    id: r.id,
    kind: r.kind,
    source: r.source,
    idempotencyKey: r.idempotency_key,
    entityKey: r.entity_key,
    eventId: r.event_id,
    deviceId: r.device_id,
    sourceMessageId: r.source_message_id,
    observedAt,
    firstSeenAt: r.first_seen_at.toISOString(),
    lastFailedAt: r.last_failed_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    rawEnvelope: r.raw_envelope,
    payload: r.payload,
    firstFailureReason: r.first_failure_reason,
    reason: r.reason,
    reasonGroup: r.reason_group,
    failureClass: r.failure_class,
    classReason: r.class_reason,
    status: r.status,
    replayCount: r.replay_count,
    failureCount: r.failure_count,
    version: r.version,
    outcome: r.analysis?.outcome ?? null,
    analysis: r.analysis,
    repairedGeometry: r.repaired_geometry,
    approvedRepair: r.status === "approved" ? readApprovedRepair(r.approved_repair) : null,
    // Parsing the raw envelope costs ~0.25 s for a 100k-vertex polygon: only for records that were edited.
    originalGeometry: r.kind === "spatial" && r.edited ? originalGeometry(r.raw_envelope, r.payload) : null,
    origin: r.origin,
    failures: failures.map((f) => ({
      attempt: f.attempt,
      at: f.at.toISOString(),
      reason: f.reason,
      origin: f.origin,
      batchId: f.batch_id,
    })),
    cursor: encodeCursor({ observedAt, id: r.id }),
  };
}

/** The record, or null when there is none with this id. `lock` takes the row lock (inside a transaction). */
export async function readDetailRow(db: Db, id: string, lock = false): Promise<DetailRow | null> {
  const { rows } = await db.query<DetailRow>(`SELECT ${DETAIL_COLUMNS} FROM dead_letter d WHERE d.id = $1${lock ? " FOR UPDATE" : ""}`, [
    id,
  ]);
  return rows[0] ?? null;
}

export async function readFailures(db: Db, id: string): Promise<FailureRow[]> {
  const { rows } = await db.query<FailureRow>(
    `SELECT attempt, at, reason, origin, batch_id::text AS batch_id FROM failure_attempt
     WHERE dead_letter_id = $1 ORDER BY attempt`,
    [id],
  );
  return rows;
}

export function notFound(id: string): AppError {
  return new AppError("not_found", `dead letter ${id} does not exist`, { issues: [{ path: "id", message: "no such dead letter" }] });
}

export async function getDeadLetter(db: Db, id: string): Promise<DeadLetterDetail> {
  const [row, failures] = await Promise.all([readDetailRow(db, id), readFailures(db, id)]);
  if (!row) throw notFound(id);
  return toDetail(row, failures);
}
