import "server-only";
import { batchInScopeSql, ledgerInScopeSql, paramsOf, scopeSql, type RecordScope } from "../scope/record-scope";
import type pg from "pg";
import { AppError } from "../errors/app-error";
import type { AuditEventRow } from "../audit/row";
import type { JsonValue } from "@/lib/json/value";
import { maskFreeText, maskJson } from "../masking/mask";
import type { MaskRules } from "../masking/rules";
import type { Timeline, TimelineEvent, TimelineKind } from "./forensics-schemas";
import { noteRecordFateInEndedBatches, summarize, type RecordContext } from "./timeline-summary";

// One record's life, in order, read from the hash-chained audit trail — not a second source of truth:
//   * events about the record (target dead_letter/<id>): failures, edits, decisions, the replay engine's
//     per-item outcomes (lib/replay/engine/write-outcomes.ts writes replay.<outcome> with the record as target), purge,
//     retention, reveals;
//   * its capture: one event per stored ingest batch lists the batch's records (lib/dead-letters/store/write-records/write-records.ts),
//     found through the failure attempt it recorded (failure_attempt.audit_event_id) and shown as the record's
//     own entry; records stored before that have an event of their own (target dead_letter/<id>);
//   * the lifecycle of every replay batch that held the record (target replay_batch/<id>, found through
//     replay_item): who created and approved the batch that replayed it;
//   * the ledger row of its key: the settlement itself, which for keys imported from an external ledger is the
//     only trace there is.
// An archived record's failure_attempt and replay_item rows are gone: the archive keeps the ids they led to, and a
// record brought back from it (a failure after its replay) has them on the event that moved it back.

type Db = pg.Pool | pg.PoolClient;

/** What the timeline selects of an audit event (AUDIT_COLUMNS below). */
export type AuditRow = Omit<AuditEventRow, "request_id" | "prev_hash" | "key_id">;

interface LedgerRow {
  idempotency_key: string;
  applied_at: Date;
  batch_id: string | null;
  item_id: string | null;
  dead_letter_id: string | null;
  origin: string;
}

export function kindOf(action: string, targetType: string): TimelineKind {
  if (targetType === "replay_batch") return "batch";
  if (action === "dead_letter.ingested" || action === "dead_letter.captured" || action === "dead_letter.pulled") return "capture";
  if (
    action === "dead_letter.failure_recorded" ||
    action === "dead_letter.failed_after_replay" ||
    action === "dead_letter.key_sent_by_other" ||
    action === "dead_letter.archived_key_received"
  )
    return "failure";
  if (action === "dead_letter.edited" || action === "dead_letter.identity_overridden") return "edit";
  if (action.includes("repair")) return "repair";
  if (/^dead_letter\.(approved|quarantined|reopened|released)$/.test(action)) return "decision";
  if (action === "dead_letter.purged") return "purge";
  if (action === "dead_letter.retention_applied" || action === "dead_letter.archived" || action === "dead_letter.unarchived")
    return "retention";
  if (action === "dead_letter.field_revealed" || action === "dead_letter.unmasked_read") return "reveal";
  if (action === "dead_letter.note_added") return "note";
  if (action.startsWith("replay.")) return "replay";
  if (action === "ledger.settled") return "settlement";
  return "other";
}

/**
 * A batch's ingest event, as this record's: `after` becomes the record's entry in it, with the batch's size.
 * Other events come back unchanged.
 */
export function asRecordEvent(r: AuditRow, recordId: string): AuditRow {
  const after = r.after;
  if (r.target_id !== null || after === null || typeof after !== "object" || Array.isArray(after)) return r;
  const records = after.records;
  if (!Array.isArray(records)) return r;
  const own = records.find((e) => e !== null && typeof e === "object" && !Array.isArray(e) && e.id === recordId);
  if (own === undefined || own === null || typeof own !== "object" || Array.isArray(own)) return r;
  const { id: _id, ...entry } = own;
  return { ...r, target_id: recordId, after: { ...entry, batchRecords: typeof after.count === "number" ? after.count : records.length } };
}

/**
 * A triage rule's decision at arrival, written inside the batch's ingest event (lib/dead-letters/store/rule-decisions.ts),
 * as an event of its own on the record's timeline: the rule (its name and version) is the actor. Null when none.
 */
export function ruleDecisionEvent(r: AuditRow, recordId: string): AuditRow | null {
  const after = r.after;
  if (r.target_id !== null || after === null || typeof after !== "object" || Array.isArray(after) || !Array.isArray(after.rules))
    return null;
  const own = after.rules.find((e) => e !== null && typeof e === "object" && !Array.isArray(e) && e.id === recordId);
  if (own === undefined || own === null || typeof own !== "object" || Array.isArray(own)) return null;
  const { id: _id, ...decision } = own;
  const rule = decision.rule !== null && typeof decision.rule === "object" && !Array.isArray(decision.rule) ? decision.rule : {};
  return {
    ...r,
    actor_id: `rule:${String(rule.id)}`,
    actor_email: `rule ${String(rule.name)} v${String(rule.version)}`,
    actor_role: "rule",
    action: decision.status === "quarantined" ? "dead_letter.quarantined" : "dead_letter.approved",
    target_type: "dead_letter",
    target_id: recordId,
    before: { status: "pending" },
    after: decision,
    reason: typeof decision.reason === "string" ? decision.reason : null,
  };
}

/** The replay batch an outcome event (replay.<outcome>) belongs to. */
function batchOf(after: JsonValue | null): string | null {
  if (after === null || typeof after !== "object" || Array.isArray(after)) return null;
  return typeof after.batchId === "string" ? after.batchId : null;
}

function fromAudit(r: AuditRow, mask: MaskRules | null, record?: RecordContext): TimelineEvent {
  const m = <T extends JsonValue | null>(v: T): JsonValue | null => (v === null || !mask ? v : maskJson(v, mask));
  const kind = kindOf(r.action, r.target_type);
  const event: TimelineEvent = {
    id: r.id,
    at: r.at.toISOString(),
    kind,
    action: r.action,
    summary: "",
    actor: { id: r.actor_id, email: r.actor_email, role: r.actor_role },
    reason: r.reason === null || !mask ? r.reason : maskFreeText(r.reason, mask),
    before: m(r.before),
    after: m(r.after),
    diff: m(r.diff),
    hash: r.hash,
  };
  event.summary = summarize(event, r.target_id, record);
  return event;
}

function fromLedger(l: LedgerRow): TimelineEvent {
  const event: TimelineEvent = {
    id: `ledger:${l.idempotency_key}`,
    at: l.applied_at.toISOString(),
    kind: "settlement",
    action: "ledger.settled",
    summary: "",
    actor: { id: null, email: null, role: null },
    reason: null,
    before: null,
    after: { idempotencyKey: l.idempotency_key, batchId: l.batch_id, itemId: l.item_id, deadLetterId: l.dead_letter_id, origin: l.origin },
    diff: null,
    hash: null,
  };
  event.summary = summarize(event, null);
  return event;
}

const AUDIT_COLUMNS = `id::text AS id, at, actor_id, actor_email, actor_role, action, target_type, target_id, before, after, diff,
  reason, hash`;
/** AUDIT_COLUMNS for a batch's ingest event read for record $1: its list narrowed to that record's entry. */
const BATCH_COLUMNS = `id::text AS id, at, actor_id, actor_email, actor_role, action, target_type, target_id, before,
  jsonb_build_object('count', after->'count',
    'records', jsonb_path_query_array(after, '$.records[*] ? (@.id == $id)', jsonb_build_object('id', $1::text)),
    'rules', jsonb_path_query_array(after, '$.rules[*] ? (@.id == $id)', jsonb_build_object('id', $1::text))) AS after,
  diff, reason, hash`;

interface Head {
  kind: Timeline["kind"];
  status: string;
  idempotency_key: string | null;
  created_at: Date;
  origin_source: string | null;
  /** archived records only: what failure_attempt and replay_item held (they left with the row) */
  capture_event_ids: string[] | null;
  replay_batch_ids: string[] | null;
  archived_at: Date | null;
}

/**
 * The record's head: the live row, else its archived one (same id, same team scope: the archive keeps source and
 * origin_source). Null when neither is there or in scope.
 */
async function headOf(db: Db, scope: RecordScope, id: string): Promise<Head | null> {
  const values: unknown[] = [id];
  const live = await db.query<Head>(
    `SELECT d.kind, d.status::text AS status, d.idempotency_key, d.created_at, d.origin_source,
       NULL AS capture_event_ids, NULL AS replay_batch_ids, NULL AS archived_at
     FROM dead_letter d WHERE d.id = $1 AND ${scopeSql(scope, paramsOf(values))}`,
    values,
  );
  if (live.rows[0]) return live.rows[0];
  const archivedValues: unknown[] = [id];
  const archived = await db.query<Head>(
    `SELECT a.kind, a.status::text AS status, a.idempotency_key, a.created_at, a.origin_source,
       a.capture_event_ids::text[] AS capture_event_ids, a.replay_batch_ids::text[] AS replay_batch_ids, a.archived_at
     FROM dead_letter_archive a WHERE a.id = $1 AND ${scopeSql(scope, paramsOf(archivedValues), "a")}`,
    archivedValues,
  );
  return archived.rows[0] ?? null;
}

/**
 * The events that brought record $1 back from the archive (a failure after its replay, write-records.ts): each keeps,
 * in `after`, the ids the archive had kept for its timeline (its failure_attempt and replay_item rows left with it),
 * and, in `before`, when it had been archived.
 */
const MOVED_BACK = `SELECT u.before, u.after FROM audit_event u
  WHERE u.target_type = 'dead_letter' AND u.target_id = $1::text AND u.action = 'dead_letter.unarchived'`;

/**
 * The archive batch's event (one per batch, listing its ids), as this record's: found by its action and instant
 * (audit_event_action_idx), the record's own entry checked in its list. `archivedAt` null: a live record's, for each
 * time it was archived and came back.
 */
function archivedEvents(db: Db, id: string, archivedAt: Date | null): Promise<pg.QueryResult<AuditRow>> {
  const at = archivedAt === null ? `at IN (SELECT (m.before->>'archivedAt')::timestamptz FROM (${MOVED_BACK}) m)` : "at = $2";
  return db.query<AuditRow>(
    `SELECT id::text AS id, at, actor_id, actor_email, actor_role, action, 'dead_letter' AS target_type, $1::text AS target_id,
       before, jsonb_build_object('archiveAfterDays', after->'archiveAfterDays', 'settledBefore', after->'settledBefore',
         'batchRecords', after->'count') AS after, diff, reason, hash
     FROM audit_event WHERE action = 'dead_letter.archived' AND ${at} AND after->'ids' ? $1::text`,
    archivedAt === null ? [id] : [id, archivedAt],
  );
}

/**
 * The timeline of one record, live or archived; `mask` null shows values as stored (callers holding
 * dead_letters:unmask).
 */
export async function recordTimeline(db: Db, scope: RecordScope, id: string, mask: MaskRules | null): Promise<Timeline> {
  const record = await headOf(db, scope, id);
  if (!record)
    throw new AppError("not_found", `dead letter ${id} does not exist`, { issues: [{ path: "id", message: "no such dead letter" }] });
  const archived = record.archived_at !== null;
  // A live record finds its capture events and replay batches through its failure_attempt and replay_item rows, and
  // those it had before it was archived on the events that brought it back; an archived one kept their ids.
  const captures = archived
    ? "$3::bigint[]"
    : `ARRAY(SELECT audit_event_id FROM failure_attempt WHERE dead_letter_id = $1::bigint AND audit_event_id IS NOT NULL
        UNION ALL SELECT x::bigint FROM (${MOVED_BACK}) m, jsonb_array_elements_text(m.after->'captureEventIds') AS x)`;
  const batchIds = archived
    ? "$1::text[]"
    : `ARRAY(SELECT batch_id::text FROM replay_item WHERE dead_letter_id = $1::bigint
        UNION ALL SELECT x FROM (${MOVED_BACK}) m, jsonb_array_elements_text(m.after->'replayBatchIds') AS x)`;
  const batchValues: unknown[] = [archived ? record.replay_batch_ids : id, record.created_at];
  const ledgerValues: unknown[] = [record.idempotency_key];
  const [own, batches, ledger, archiveEvent] = await Promise.all([
    // Ids restart when the demo data is reset (`db seed --reset` truncates dead_letter; the audit trail stays):
    // events older than the record belong to an earlier record that had its id. Its capture event has the
    // record's created_at exactly (one `now` for both), so nothing of this record is cut.
    db.query<AuditRow>(
      `SELECT ${AUDIT_COLUMNS} FROM audit_event WHERE target_type = 'dead_letter' AND target_id = $1 AND at >= $2
       UNION ALL
       -- The batch's ingest event, with only this record's entry in its list (a batch lists up to 500).
       SELECT ${BATCH_COLUMNS} FROM audit_event
       WHERE id = ANY (${captures}) AND target_id IS NULL AND at >= $2
       ORDER BY id`,
      archived ? [id, record.created_at, record.capture_event_ids] : [id, record.created_at],
    ),
    // A batch's own events only when the batch is the reader's (as GET /api/replays/{id} answers): one reaching into
    // another team's records lists their ids, sources and counts.
    db.query<AuditRow>(
      `SELECT ${AUDIT_COLUMNS} FROM audit_event
       WHERE target_type = 'replay_batch' AND target_id = ANY(${batchIds}) AND at >= $2
         ${scope.all ? "" : `AND EXISTS (SELECT 1 FROM replay_batch b WHERE b.id::text = audit_event.target_id AND ${batchInScopeSql(scope, paramsOf(batchValues))})`}
       ORDER BY id`,
      batchValues,
    ),
    record.idempotency_key === null
      ? Promise.resolve({ rows: [] as LedgerRow[] })
      : db.query<LedgerRow>(
          `SELECT idempotency_key, applied_at, batch_id::text AS batch_id, item_id::text AS item_id,
             dead_letter_id::text AS dead_letter_id, origin
           FROM ledger_entry l WHERE idempotency_key = $1 AND ${ledgerInScopeSql(scope, paramsOf(ledgerValues))}`,
          ledgerValues,
        ),
    archivedEvents(db, id, record.archived_at),
  ]);
  // Audit rows sort by time, then by chain order; the ledger row sits after the audit events of its instant
  // (the replay outcome that settled it is written in the same transaction, with the same time).
  const keyed = [
    ...[...own.rows.map((r) => asRecordEvent(r, id)), ...archiveEvent.rows, ...batches.rows].map((r) => ({
      at: r.at.getTime(),
      seq: Number(r.id),
      event: fromAudit(r, mask, { originSource: record.origin_source }),
      batchId: r.target_type === "replay_batch" ? r.target_id : batchOf(r.after),
    })),
    // Right after the ingest event it was written in (same instant, same chain position: seq + 0.5).
    ...own.rows.flatMap((r) => {
      const ruled = ruleDecisionEvent(r, id);
      if (!ruled) return [];
      const event = fromAudit(ruled, mask, { originSource: record.origin_source });
      return [{ at: r.at.getTime(), seq: Number(r.id) + 0.5, event: { ...event, id: `${event.id}:rule` }, batchId: null }];
    }),
    ...ledger.rows.map((l) => ({ at: l.applied_at.getTime(), seq: Number.MAX_SAFE_INTEGER, event: fromLedger(l), batchId: null })),
  ];
  keyed.sort((a, b) => a.at - b.at || a.seq - b.seq);
  noteRecordFateInEndedBatches(keyed);
  return {
    deadLetterId: id,
    idempotencyKey: record.idempotency_key,
    kind: record.kind,
    status: record.status,
    archivedAt: record.archived_at?.toISOString() ?? null,
    masked: mask !== null,
    events: keyed.map((k) => k.event),
  };
}
