import { originalGeometry } from "../../spatial/received";
import { encodeCursor } from "./cursor";
import { LastReplaySchema, type DeadLetterDetail, type LastReplay } from "../contract/detail";
import { ApprovedRepairSchema, type ApprovedRepair, type SpatialAnalysis } from "../../vocabulary/record";
import type { JsonValue } from "../../json/value";
import { DecidedByRuleSchema, type DecidedByRule } from "../../rules/rule-schemas";

// A dead_letter row as the detail query reads it, and the detail it becomes. Pure (no database, no framework):
// a heavy record's detail is built on a worker thread (detail-answer.ts) from the same row.

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
  /** the latest replay that reached its sink (detail.ts LAST_REPLAY_SQL), or null */
  last_replay?: unknown;
  /** the rule version that decided the record (detail.ts DECIDED_BY_SQL), or null */
  decided_by?: unknown;
}

/** A stored pin, or null when absent or unreadable (an unreadable one pins nothing: the batch's repair applies). */
function readApprovedRepair(value: unknown): ApprovedRepair | null {
  const parsed = ApprovedRepairSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function readLastReplay(value: unknown): LastReplay | null {
  if (value === null || value === undefined) return null;
  const parsed = LastReplaySchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The approval's pin is kept through the replay it was sent with: what was approved stays on the record. */
const KEEPS_PIN = new Set<DeadLetterDetail["status"]>(["approved", "replayed"]);

/** A rule's decision stands while the record is where it put it (or replayed from there); a failure after replay ends it. */
const RULE_DECIDED = new Set<DeadLetterDetail["status"]>(["approved", "quarantined", "replayed"]);

function readDecidedBy(value: unknown): DecidedByRule | null {
  const parsed = DecidedByRuleSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export interface FailureRow {
  attempt: number;
  at: Date;
  reason: string;
  origin: string;
  batch_id: string | null;
  also_sent_by: string | null;
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
    approvedRepair: KEEPS_PIN.has(r.status) ? readApprovedRepair(r.approved_repair) : null,
    lastReplay: readLastReplay(r.last_replay),
    decidedBy: RULE_DECIDED.has(r.status) ? readDecidedBy(r.decided_by) : null,
    // Parsing the raw envelope is costly for a large polygon: only for records that were edited.
    originalGeometry: r.kind === "spatial" && r.edited ? originalGeometry(r.raw_envelope, r.payload) : null,
    origin: r.origin,
    failures: failures.map((f) => ({
      attempt: f.attempt,
      at: f.at.toISOString(),
      reason: f.reason,
      origin: f.origin,
      batchId: f.batch_id,
      alsoSentBy: f.also_sent_by,
    })),
    cursor: encodeCursor({ observedAt, id: r.id }),
  };
}
