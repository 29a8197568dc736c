import "server-only";
import type pg from "pg";
import { reasonGroup } from "../../afc/reason-group";
import { compareIds } from "../../db/id-order";
import { recordEffect, type RecordOutcome, type RecordState } from "./failure-rules";

// What item outcomes do to their dead-letter records (lib/replay/engine/failure-rules.ts recordEffect), written for a whole
// group inside the outcome transaction: settled records in one statement, the others in three (lock in id
// order — the engine's lock order, see claim-items.ts —, update from one unnest, append the failure history).

export interface RecordTouch {
  deadLetterId: string;
  outcome: RecordOutcome;
  reason: string | null;
  submitted: boolean;
}

interface LockedRecord {
  id: string;
  kind: RecordState["kind"];
  status: RecordState["status"];
  failure_count: number;
  replay_count: number;
  failure_class: RecordState["failureClass"];
  class_reason: string | null;
}

export interface RecordWriteResult {
  /** record id → status before and after, for the audit events */
  changes: Map<string, { before: string; after: string }>;
}

export async function writeRecordEffects(
  client: pg.PoolClient,
  touches: RecordTouch[],
  ctx: { batchId: string; now: Date },
): Promise<RecordWriteResult> {
  const changes = new Map<string, { before: string; after: string }>();
  const settled = touches.filter((t) => t.outcome === "applied" || t.outcome === "deduped");
  const others = touches.filter((t) => t.outcome !== "applied" && t.outcome !== "deduped");
  if (settled.length > 0) await settleRecords(client, settled, ctx.now);
  if (others.length === 0) return { changes };
  const { rows } = await client.query<LockedRecord>(
    `SELECT id::text AS id, kind, status, failure_count, replay_count, failure_class, class_reason
     -- dead_letter.id: a bare "id" would sort the text alias, locking 10 before 9 against the engine's lock order.
     FROM dead_letter WHERE id = ANY($1::bigint[]) ORDER BY dead_letter.id FOR UPDATE`,
    [others.map((t) => t.deadLetterId)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const u = {
    id: [] as string[],
    status: [] as string[],
    replay: [] as number[],
    failures: [] as number[],
    cls: [] as string[],
    clsReason: [] as (string | null)[],
    reason: [] as (string | null)[],
    group: [] as (string | null)[],
  };
  const attempts = { id: [] as string[], attempt: [] as number[], reason: [] as string[] };
  for (const t of others) {
    const row = byId.get(t.deadLetterId);
    if (!row) continue; // deleted (cascade would have removed the item too): nothing to record
    const state: RecordState = {
      kind: row.kind,
      status: row.status,
      failureCount: row.failure_count,
      replayCount: row.replay_count,
      failureClass: row.failure_class,
      classReason: row.class_reason,
    };
    const next = recordEffect(state, t.outcome, { reason: t.reason, submitted: t.submitted, now: ctx.now });
    changes.set(row.id, { before: row.status, after: next.status });
    u.id.push(row.id);
    u.status.push(next.status);
    u.replay.push(next.replayCount);
    u.failures.push(next.failureCount);
    u.cls.push(next.failureClass);
    u.clsReason.push(next.classReason);
    u.reason.push(next.reason);
    u.group.push(next.reason === null ? null : reasonGroup(next.reason));
    if (next.attempt) {
      attempts.id.push(row.id);
      attempts.attempt.push(next.attempt.attempt);
      attempts.reason.push(next.attempt.reason);
    }
  }
  if (u.id.length > 0) {
    await client.query(
      `UPDATE dead_letter d SET status = u.status, replay_count = u.replay, failure_count = u.failures,
         failure_class = u.cls, class_reason = u.cls_reason, reason = coalesce(u.reason, d.reason),
         reason_group = coalesce(u.rgroup, d.reason_group),
         last_failed_at = CASE WHEN u.failures > d.failure_count THEN $9 ELSE d.last_failed_at END,
         version = d.version + 1, updated_at = $9
       FROM unnest($1::bigint[], $2::"DeadLetterStatus"[], $3::int[], $4::int[], $5::"FailureClass"[], $6::text[],
         $7::text[], $8::text[]) AS u(id, status, replay, failures, cls, cls_reason, reason, rgroup)
       WHERE d.id = u.id AND d.id = ANY($1::bigint[])`,
      [u.id, u.status, u.replay, u.failures, u.cls, u.clsReason, u.reason, u.group, ctx.now],
    );
  }
  if (attempts.id.length > 0) {
    await client.query(
      `INSERT INTO failure_attempt (dead_letter_id, attempt, at, reason, origin, batch_id)
       SELECT id, attempt, $4, reason, 'replay', $5 FROM unnest($1::bigint[], $2::int[], $3::text[]) AS t(id, attempt, reason)`,
      [attempts.id, attempts.attempt, attempts.reason, ctx.now, ctx.batchId],
    );
  }
  return { changes };
}

/**
 * The common case in one statement: settled records (applied, deduped) become `replayed` — what recordEffect
 * says for these outcomes, written without reading the rows first, nor locking them before the update (a row lock
 * writes each tuple once more). The ids are sorted; the plan decides the order the rows are locked in, and a
 * deadlock against a transaction locking them the other way round fails one side with 40P01, which the group
 * writer retries (settleDeliveredRecords in write-outcomes.ts says more).
 */
async function settleRecords(client: pg.PoolClient, settled: RecordTouch[], now: Date): Promise<void> {
  const sorted = [...settled].sort((a, b) => compareIds(a.deadLetterId, b.deadLetterId));
  const ids = sorted.map((t) => t.deadLetterId);
  await client.query(
    `UPDATE dead_letter d SET status = CASE WHEN d.status = 'approved' THEN 'replayed'::"DeadLetterStatus" ELSE d.status END,
       replay_count = d.replay_count + u.submitted::int, version = d.version + 1, updated_at = $3
     FROM unnest($1::bigint[], $2::bool[]) AS u(id, submitted)
     WHERE u.id = d.id AND d.id = ANY($1::bigint[])`,
    [ids, sorted.map((t) => t.submitted), now],
  );
}
