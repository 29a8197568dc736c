import "server-only";
import type pg from "pg";
import { appendAudit } from "../audit/append";
import { auditActor, SYSTEM_ACTOR, type Actor } from "../audit/actor";
import { inTransaction } from "../db/transaction";

// The archive horizon: a settled record (replayed or purged; both final) leaves dead_letter once it has been
// settled for `days`, into dead_letter_archive — its identity, key, final state and the ids that find its timeline
// in the audit trail (which stays whole), and what a failure after its replay is decided from. Lookup, the timeline
// and ingest read the archive (lookup.ts, timeline.ts, write-records.ts): an archived id still answers "what
// happened", and an archived key is still known — a duplicate, or, for a replayed record, its failing again.
// Retention (retention.ts) strips payloads earlier; this bounds the table itself.
//
// Each batch is one statement in its own short transaction: rows claimed in settle order with SKIP LOCKED (ingest
// locking a record for a repeat, or another process archiving, is skipped, not waited for), copied, deleted (their
// failure_attempt, replay_item, identity_alias and note rows go by cascade). A record still held by an unfinished
// replay item stays. Batches are paced and a run has a time budget, so the list and ingest interleave with it.

export const BATCH = 1000;
export const DEFAULT_BUDGET_MS = 20_000;
export const DEFAULT_PAUSE_MS = 25;

export interface ArchiveResult {
  archived: number;
  batches: number;
  /** the run stopped at its budget with records still due: the next run continues */
  more: boolean;
  /** the slowest batch, ms */
  worstBatchMs: number;
}

export function archiveCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

const UNFINISHED_ITEM = `EXISTS (SELECT 1 FROM replay_item i WHERE i.dead_letter_id = d.id AND i.status IN ('pending', 'running', 'retry'))`;

// The copied values come from `due`, the locked rows (the latest version of each), not from a second read of
// dead_letter under the statement's snapshot, which could be the version before a concurrent change.
const MOVE = `WITH due AS (
    SELECT d.id, d.kind, d.source, d.origin_source, d.origin_message_id, d.idempotency_key, d.entity_key, d.event_id,
      d.device_id, d.source_message_id, d.ingested_by, d.observed_at, d.first_seen_at, d.created_at, d.updated_at, d.status,
      d.failure_class, d.reason, d.reason_group, d.failure_count, d.replay_count, d.first_failure_reason, d.class_reason,
      d.decided_by_rule_id, d.decided_by_rule_version
    FROM dead_letter d
    WHERE d.status IN ('replayed', 'purged') AND d.updated_at < $1 AND NOT ${UNFINISHED_ITEM}
    ORDER BY d.updated_at, d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED
  ), kept AS (
    INSERT INTO dead_letter_archive (id, kind, source, origin_source, origin_message_id, idempotency_key, entity_key, event_id,
      device_id, source_message_id, ingested_by, observed_at, first_seen_at, created_at, settled_at, archived_at, status,
      failure_class, reason, reason_group, failure_count, replay_count, capture_event_ids, replay_batch_ids, aliases,
      first_failure_reason, class_reason, noted_failures, decided_by_rule_id, decided_by_rule_version, last_replay_batch_id)
    SELECT u.id, u.kind, u.source, u.origin_source, u.origin_message_id, u.idempotency_key, u.entity_key, u.event_id,
      u.device_id, u.source_message_id, u.ingested_by, u.observed_at, u.first_seen_at, u.created_at, u.updated_at, $3, u.status,
      u.failure_class, u.reason, u.reason_group, u.failure_count, u.replay_count,
      ARRAY(SELECT DISTINCT f.audit_event_id FROM failure_attempt f WHERE f.dead_letter_id = u.id AND f.audit_event_id IS NOT NULL),
      ARRAY(SELECT DISTINCT i.batch_id FROM replay_item i WHERE i.dead_letter_id = u.id),
      (SELECT jsonb_agg(jsonb_build_object('field', a.field, 'value', a.value, 'replacedAt', a.replaced_at))
       FROM identity_alias a WHERE a.dead_letter_id = u.id),
      u.first_failure_reason, u.class_reason,
      (SELECT count(*)::int FROM failure_attempt f WHERE f.dead_letter_id = u.id AND f.also_sent_by IS NOT NULL),
      u.decided_by_rule_id, u.decided_by_rule_version,
      -- as write-records.ts recordRepeats finds it for a live record
      CASE WHEN u.status = 'replayed' THEN (
        SELECT i.batch_id FROM replay_item i
        WHERE i.dead_letter_id = u.id AND i.status IN ('applied', 'deduped')
        ORDER BY i.finished_at DESC NULLS LAST, i.id DESC LIMIT 1) END
    FROM due u
    RETURNING id
  )
  DELETE FROM dead_letter d USING kept WHERE d.id = kept.id
  RETURNING d.id::text AS id`;

/**
 * Moves settled records past the horizon into the archive, batch after batch, until none is due or `budgetMs` has
 * passed. Each batch is audited as one dead_letter.archived event listing its ids.
 */
export async function runArchive(
  pool: pg.Pool,
  now: Date,
  days: number,
  opts: { batch?: number; budgetMs?: number; pauseMs?: number; actor?: Actor; signal?: AbortSignal } = {},
): Promise<ArchiveResult> {
  const cutoff = archiveCutoff(now, days);
  const batch = opts.batch ?? BATCH;
  const budget = opts.budgetMs ?? DEFAULT_BUDGET_MS;
  const actor = opts.actor ?? SYSTEM_ACTOR;
  const started = performance.now();
  const result: ArchiveResult = { archived: 0, batches: 0, more: false, worstBatchMs: 0 };
  for (;;) {
    const t = performance.now();
    const ids = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ id: string }>(MOVE, [cutoff, batch, now]);
      if (rows.length === 0) return rows;
      await appendAudit(
        client,
        [
          {
            ...auditActor(actor),
            action: "dead_letter.archived",
            targetType: "dead_letter",
            targetId: null,
            after: { ids: rows.map((r) => r.id), count: rows.length, archiveAfterDays: days, settledBefore: cutoff.toISOString() },
          },
        ],
        now,
      );
      return rows;
    });
    result.worstBatchMs = Math.max(result.worstBatchMs, performance.now() - t);
    if (ids.length === 0) return result;
    result.batches++;
    result.archived += ids.length;
    if (ids.length < batch) return result;
    if (performance.now() - started >= budget || opts.signal?.aborted) return { ...result, more: true };
    await new Promise((r) => setTimeout(r, opts.pauseMs ?? DEFAULT_PAUSE_MS));
  }
}
