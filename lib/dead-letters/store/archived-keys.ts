import "server-only";
import type pg from "pg";
import { auditActor, type Actor } from "../../audit/actor";
import type { AuditInput } from "../../audit/append";
import type { PreparedRecord } from "./prepare-row";
import type { RepeatState } from "./repeat-failure";

// Arrivals of keys whose record left dead_letter for the archive (lib/ops/archive.ts). What such an arrival does is
// decided as for a live record (write-records.ts recordRepeats, decideKnownKey): a replayed record fails again and
// comes back to triage — moved back into dead_letter, under its id — and any other archived record is left where it
// is, the arrival a duplicate audited on it.

/** Who sends, as the store knows it (write-records.ts StoreContext). */
interface Sending {
  actor: Actor;
  requestId: string | null;
  origin: string;
}

/**
 * The ids of rows just inserted whose key is in dead_letter_archive: their key was seen before, so they are repeats,
 * and each row stays only to hold the arriving body until the store decides (moveBack deletes it). Checked after the
 * insert, not before: an archiving transaction deletes the live row and inserts the archived one atomically, and an
 * insert of the same key that ran meanwhile waited on the deleted row's unique-index entry until that commit, so this
 * statement, which starts after the insert, sees the archived key. A check before the insert would miss exactly that
 * race. One index probe per new key; an empty archive answers at once.
 */
export async function archivedArrivals(client: pg.PoolClient, inserted: { id: string; kind: string; key: string }[]): Promise<Set<string>> {
  if (inserted.length === 0) return new Set();
  const { rows } = await client.query<{ id: string }>(
    `SELECT k.id::text AS id FROM unnest($1::bigint[], $2::"DeadLetterKind"[], $3::text[]) AS k(id, kind, key)
     JOIN dead_letter_archive a ON a.kind = k.kind AND a.idempotency_key = k.key`,
    [inserted.map((o) => o.id), inserted.map((o) => o.kind), inserted.map((o) => o.key)],
  );
  return new Set(rows.map((r) => r.id));
}

/** A stored record as recordRepeats (write-records.ts) locks and decides it, live or archived. */
export interface LockedRow {
  id: string;
  source: string;
  kind: RepeatState["kind"];
  idempotency_key: string;
  failure_count: number;
  replay_count: number;
  failure_class: RepeatState["failureClass"];
  class_reason: string | null;
  status: RepeatState["status"];
  reason: string;
  ingested_by: string | null;
  /** failures in its history that changed nothing (failure_attempt.also_sent_by set) */
  noted: number;
  /** for a replayed record: the batch that replayed it last */
  replay_batch: string | null;
  /** for an approved record: the batch whose item is replaying it now (sent, its outcome not yet written) */
  replaying_batch?: string | null;
  /** its payload was stripped by retention (lib/ops/retention.ts) */
  stripped?: boolean;
  /** the rule version that decided it (a re-failure after its replay counts against that rule) */
  rule_id: string | null;
  rule_version: number | null;
}

/** An archived record as recordRepeats reads a live one (its LockedRow), with what the archive kept for its timeline. */
export interface ArchivedRow extends Omit<LockedRow, "replaying_batch" | "stripped"> {
  archived_at: Date;
  capture_event_ids: string[];
  replay_batch_ids: string[];
}

/**
 * The archived records of keys that have no live row (archived before or while this batch stored), locked in id
 * order like the live rows before them: two stores of one archived key decide one after the other. Keyed by keyOf.
 * A record archived before the archive kept its class reason, noted failures, rule and last replay batch
 * (migration 20261210000000) is read as having none, and as replayed last by the newest batch that held it.
 */
export async function lockArchived(client: pg.PoolClient, missing: PreparedRecord[]): Promise<Map<string, ArchivedRow>> {
  if (missing.length === 0) return new Map();
  const { rows } = await client.query<ArchivedRow>(
    `SELECT a.id::text AS id, a.source, a.kind, a.idempotency_key, a.failure_count, a.replay_count, a.failure_class,
       a.class_reason, a.status, a.reason, a.ingested_by, coalesce(a.noted_failures, 0) AS noted,
       CASE WHEN a.status = 'replayed'
         THEN coalesce(a.last_replay_batch_id, (SELECT max(b) FROM unnest(a.replay_batch_ids) AS b))::text END AS replay_batch,
       a.decided_by_rule_id::text AS rule_id, a.decided_by_rule_version AS rule_version, a.archived_at,
       a.capture_event_ids::text[] AS capture_event_ids, a.replay_batch_ids::text[] AS replay_batch_ids
     FROM dead_letter_archive a
     WHERE (a.kind, a.idempotency_key) IN (SELECT * FROM unnest($1::"DeadLetterKind"[], $2::text[]))
     ORDER BY a.id FOR UPDATE OF a`,
    [missing.map((r) => r.kind), missing.map((r) => r.idempotencyKey)],
  );
  return new Map(rows.map((r) => [`${r.kind}\u0000${r.idempotency_key}`, r]));
}

/** Where an arrival's body is: its row in dead_letter (archivedArrivals), or in the staging table (insertRows). */
export interface HeldBody {
  id: string;
  staged: boolean;
}

/**
 * Brings archived records back into dead_letter under their own id, key, identity, counts and class as archived
 * (the caller then writes the failure on them as on any live record), with the arriving body — payload, raw
 * envelope, analysis, repair, box — since retention may have stripped the archived one and the archive keeps none;
 * the arrival's broker provenance when it came through the record's own broker source. Identity aliases come back;
 * failure_attempt and replay_item rows left at archiving and do not. The archived row is deleted in the same
 * statement, and so is every held row (those of arrivals that changed nothing too). A held row has the key of the
 * record it brings back: the insert reads its body from `held`, so the row is deleted before its key goes in again.
 */
export async function moveBack(
  client: pg.PoolClient,
  revivals: { archivedId: string; body: HeldBody | null }[],
  held: string[],
  now: Date,
): Promise<void> {
  if (revivals.length === 0 && held.length === 0) return;
  const staged = revivals.flatMap((r) => (r.body?.staged ? [r.body.id] : []));
  const values: unknown[] = [held, revivals.map((r) => r.archivedId), revivals.map((r) => r.body?.id ?? null), now];
  const body = "id, raw_envelope, payload, analysis, repaired_geometry, bbox, origin_source, origin";
  // An arrival whose insert met its key's live row, archived just after (recordRepeats found it gone), has its body
  // in the staging table only (insertRows took that path for it).
  const fromStage = staged.length
    ? `UNION ALL SELECT ${body} FROM dead_letter_stage WHERE id = ANY($${values.push(staged)}::bigint[])`
    : "";
  const { rows } = await client.query<{ id: string }>(
    `WITH held AS (DELETE FROM dead_letter WHERE id = ANY($1::bigint[]) RETURNING ${body}),
     body AS (SELECT ${body} FROM held ${fromStage}),
     back AS (DELETE FROM dead_letter_archive a USING unnest($2::bigint[], $3::bigint[]) AS m(id, body_id) WHERE a.id = m.id
       RETURNING a.*, m.body_id),
     aliases AS (INSERT INTO identity_alias (dead_letter_id, field, value, replaced_at)
       SELECT a.id, x->>'field', x->>'value', (x->>'replacedAt')::timestamptz FROM back a, jsonb_array_elements(a.aliases) AS x)
     INSERT INTO dead_letter (id, kind, source, idempotency_key, entity_key, event_id, device_id, source_message_id,
       origin_source, origin_message_id, origin, ingested_by, observed_at, first_seen_at, raw_envelope, payload,
       first_failure_reason, reason, reason_group, failure_class, class_reason, status, replay_count, failure_count,
       analysis, repaired_geometry, bbox, decided_by_rule_id, decided_by_rule_version, created_at, updated_at, last_failed_at)
     SELECT a.id, a.kind, a.source, a.idempotency_key, a.entity_key, a.event_id, a.device_id, a.source_message_id,
       a.origin_source, a.origin_message_id, CASE WHEN b.origin_source = a.origin_source THEN b.origin END, a.ingested_by,
       a.observed_at, a.first_seen_at, b.raw_envelope, b.payload, coalesce(a.first_failure_reason, a.reason), a.reason,
       a.reason_group, a.failure_class, a.class_reason, a.status, a.replay_count, a.failure_count, b.analysis,
       b.repaired_geometry, b.bbox, a.decided_by_rule_id, a.decided_by_rule_version, a.created_at, $4, $4
     FROM back a LEFT JOIN body b ON b.id = a.body_id
     RETURNING id::text AS id`,
    values,
  );
  if (rows.length !== revivals.length) throw new Error(`${revivals.length - rows.length} archived records vanished while moving back`);
}

/** The audit event of a record moved back: where it was, and the ids the archive kept for its timeline. */
export function movedBackAudit(row: ArchivedRow, ctx: Sending): AuditInput {
  return {
    ...auditActor(ctx.actor, ctx.requestId),
    action: "dead_letter.unarchived",
    targetType: "dead_letter",
    targetId: row.id,
    before: { status: row.status, archived: true, archivedAt: row.archived_at.toISOString() },
    after: { captureEventIds: row.capture_event_ids, replayBatchIds: row.replay_batch_ids },
  };
}

/**
 * An arrival that changes nothing on an archived record (it was not replayed: purged, settled otherwise): a
 * duplicate, its archived row never written, audited on the record so its timeline shows the arrival. The record's
 * own sender learns its id, as for any repeat.
 */
export function archivedRepeat(
  row: ArchivedRow,
  r: PreparedRecord,
  sender: string | null,
  audits: AuditInput[],
  ctx: Sending,
): { status: "duplicate"; id: string | null; failureClass: RepeatState["failureClass"] | null; effect: "archived"; recordId: string } {
  audits.push({
    ...auditActor(ctx.actor, ctx.requestId),
    action: "dead_letter.archived_key_received",
    targetType: "dead_letter",
    targetId: row.id,
    before: { status: row.status, archived: true },
    after: { reason: r.failureReason, origin: ctx.origin },
  });
  const own = sender === row.ingested_by;
  return {
    status: "duplicate",
    id: own ? row.id : null,
    failureClass: own ? row.failure_class : null,
    effect: "archived",
    recordId: row.id,
  };
}
