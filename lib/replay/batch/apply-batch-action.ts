import "server-only";
import { batchInScopeSql, paramsOf, type RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { assertFourEyes } from "../../auth/four-eyes";
import { inTransaction } from "../../db/transaction";
import { errorMessage } from "../../db/transient-errors";
import { allowedFrom, nextStatus, singleApproverAllowed, type BatchAction } from "./batch-states";
import { lockedSingleApproverLimit } from "./single-approver";
import { lockBatchForStop } from "./stop-lock";
import type { BatchStatus } from "./batch-schemas";

// Batch life-cycle changes: one transaction each, on the batch row locked FOR UPDATE, with the transition
// checked against lib/replay/batch/batch-states.ts under that lock and the audit event in the same commit. Workers
// notice within ~200 ms (they poll the status and re-check it in every claim and outcome transaction).

/** Who acts: a signed-in user (API) or the user named by the CLI's --as. */
export interface ActingUser {
  userId: string;
  email: string;
  role: string;
  /** the records the user may batch and approve (their teams') */
  scope: RecordScope;
}

/** The audit trail's actor for an acting user. */
export function actingActor(user: ActingUser): Actor {
  return { id: user.userId, email: user.email, role: user.role };
}

interface LockedBatch {
  status: BatchStatus;
  created_by_id: string;
  total: number;
}

export async function applyBatchAction(
  pool: pg.Pool,
  batchId: string,
  action: BatchAction,
  user: ActingUser,
  ctx: { now: Date; requestId?: string | null },
): Promise<{ status: BatchStatus; cancelledItems: number; itemsCancelled: Promise<number> }> {
  return inTransaction(pool, async (client) => {
    // Stopping waits for the pages being recorded, so what they delivered is counted as delivered (stop-lock.ts).
    if (action === "pause" || action === "cancel") await lockBatchForStop(client, batchId);
    const values: unknown[] = [batchId];
    const { rows } = await client.query<LockedBatch>(
      `SELECT status::text AS status, created_by_id, total FROM replay_batch b
       WHERE b.id = $1 AND ${batchInScopeSql(user.scope, paramsOf(values))} FOR UPDATE`,
      values,
    );
    const batch = rows[0];
    if (!batch) throw new AppError("not_found", `replay batch ${batchId} not found`);
    // The creator approving their own batch: allowed only within the admin's limit, read under this lock.
    let singleApprover: number | null = null;
    if (action === "approve" && batch.created_by_id === user.userId) {
      const limit = await lockedSingleApproverLimit(client);
      if (!singleApproverAllowed(batch.total, limit))
        assertFourEyes({ createdById: batch.created_by_id }, user, { total: batch.total, limit });
      singleApprover = limit;
    }
    const to = nextStatus(batch.status, action);
    if (!to) {
      throw new AppError(
        "conflict",
        `cannot ${action} ${/^[aeiou]/.test(batch.status) ? "an" : "a"} ${batch.status} batch (needs ${allowedFrom(action).join(" or ")})`,
        {
          details: { status: batch.status, action },
        },
      );
    }
    // $1 batch, $2 now, $3 new status, $4 the action's own value
    const sets: Record<BatchAction, { set: string; value?: string }> = {
      approve: {
        set: `approved_by_id = $4, approved_at = $2, single_approver_limit = ${singleApprover === null ? "NULL" : String(singleApprover)}`,
        value: user.userId,
      },
      // A fresh schedule: tat from now, failures counted from now.
      start: { set: `started_at = coalesce(started_at, $2), tat = NULL, window_from = $2, status_reason = NULL` },
      pause: { set: `status_reason = $4`, value: `paused by ${user.email}` },
      // A standing replay's canary watches again from the resume (the failures that tripped it are behind it).
      resume: { set: `tat = NULL, window_from = $2, status_reason = NULL, canary_passed_at = NULL, canary_tripped_at = NULL` },
      cancel: { set: `finished_at = $2, status_reason = $4`, value: `cancelled by ${user.email}` },
    };
    let cancelledItems = 0;
    if (action === "cancel") {
      // The batch's status is the cancel: no worker claims or delivers anything of it from this commit on (pages
      // being recorded finished first: stop-lock.ts). HTTP requests already in flight finish and keep their answer.
      // Its waiting items are marked afterwards, in chunks (cancelWaitingItems): marking a large batch's items in
      // this transaction would keep the supervisor waiting for the answer. Claimed ones are finished by their workers
      // (delivered ones keep their outcome, undelivered ones become cancelled), or by the sweeper.
      cancelledItems = await countWaiting(client, batchId);
    }
    const { set, value } = sets[action];
    await client.query(
      `UPDATE replay_batch SET status = $3::"ReplayBatchStatus", updated_at = $2, ${set}
       WHERE id = $1`,
      value === undefined ? [batchId, ctx.now, to] : [batchId, ctx.now, to, value],
    );
    await appendAudit(
      client,
      [
        {
          ...auditActor(actingActor(user), ctx.requestId ?? null),
          action: `replay_batch.${action}`,
          targetType: "replay_batch",
          targetId: batchId,
          before: { status: batch.status },
          after: {
            status: to,
            ...(action === "cancel" ? { cancelledItems } : {}),
            ...(singleApprover === null ? {} : { singleApprover: true, singleApproverLimit: singleApprover, total: batch.total }),
          },
          ...(singleApprover === null
            ? {}
            : {
                reason: `approved by one supervisor: ${batch.total} record${batch.total === 1 ? "" : "s"}, within the admin's limit of ${singleApprover}`,
              }),
        },
      ],
      ctx.now,
    );
    return { status: to, cancelledItems };
  }).then((r) => ({
    ...r,
    // Callers that answer a person do not wait for this (the API); the CLI does. The sweeper finishes what a
    // process that stopped meanwhile left.
    itemsCancelled:
      action === "cancel"
        ? cancelWaitingItems(pool, batchId, ctx.now).catch((err: unknown) => {
            console.error(`[replay] batch ${batchId}: waiting items not marked cancelled yet (${errorMessage(err)}); the sweeper will`);
            return 0;
          })
        : Promise.resolve(0),
  }));
}

/**
 * Marks the waiting items (pending, retry) of a cancelled or failed batch cancelled, in chunks so no statement
 * holds many row locks, counting them on the batch. Returns how many it marked.
 */
export async function cancelWaitingItems(pool: pg.Pool, batchId: string, now: Date, chunk = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    // Lock order as everywhere: item rows by id, then the batch row (claim-items.ts).
    const { rows } = await pool.query<{ n: number }>(
      `WITH waiting AS (
         SELECT i.id, b.status FROM replay_item i JOIN replay_batch b ON b.id = i.batch_id
         WHERE i.batch_id = $1 AND b.status IN ('cancelled', 'failed') AND i.status IN ('pending', 'retry')
         ORDER BY i.id LIMIT $3 FOR UPDATE OF i SKIP LOCKED
       ), marked AS (
         UPDATE replay_item i SET status = 'cancelled', finished_at = $2, last_error = 'batch ' || waiting.status::text
         FROM waiting WHERE i.id = waiting.id
         RETURNING 1
       ), counted AS (
         UPDATE replay_batch SET cancelled_count = cancelled_count + (SELECT count(*) FROM marked) WHERE id = $1 AND EXISTS (SELECT 1 FROM marked)
       )
       SELECT count(*)::int AS n FROM marked`,
      [batchId, now, chunk],
    );
    const n = rows[0]?.n ?? 0;
    total += n;
    if (n < chunk) return total;
  }
}

/** A worker pauses a batch whose sink keeps failing (lib/replay/engine/failure-rules.ts failureVerdict). */
export async function selfPause(pool: pg.Pool, batchId: string, reason: string, actor: Actor, now: Date): Promise<boolean> {
  return stopBatch(pool, batchId, "paused", reason, actor, now);
}

/**
 * A worker pauses a standing replay whose canary failed (lib/replay/engine/failure-rules.ts canaryVerdict), marking
 * it held by the canary; `also` runs in the same transaction once it paused (the rule's alert).
 */
export async function canaryPause(
  pool: pg.Pool,
  batchId: string,
  reason: string,
  actor: Actor,
  now: Date,
  also: (client: pg.PoolClient) => Promise<void>,
): Promise<boolean> {
  return stopBatch(pool, batchId, "paused", reason, actor, now, { canary: true, also });
}

/** A worker gives up on a batch it cannot run (unusable configuration, repeated engine errors). */
export async function failBatch(pool: pg.Pool, batchId: string, reason: string, actor: Actor, now: Date): Promise<boolean> {
  return stopBatch(pool, batchId, "failed", reason, actor, now);
}

async function stopBatch(
  pool: pg.Pool,
  batchId: string,
  to: "paused" | "failed",
  reason: string,
  actor: Actor,
  now: Date,
  opts: { canary?: boolean; also?: (client: pg.PoolClient) => Promise<void> } = {},
): Promise<boolean> {
  const stopped = await inTransaction(pool, async (client) => {
    await lockBatchForStop(client, batchId);
    const { rows } = await client.query(
      `UPDATE replay_batch SET status = $2::"ReplayBatchStatus", status_reason = $3, updated_at = $4,
         finished_at = CASE WHEN $2 = 'failed' THEN $4::timestamptz ELSE finished_at END,
         canary_tripped_at = CASE WHEN $5 THEN $4::timestamptz ELSE canary_tripped_at END
       WHERE id = $1 AND status = 'running' RETURNING id`,
      [batchId, to, reason, now, opts.canary === true],
    );
    if (rows.length === 0) return false;
    await opts.also?.(client);
    // A failed batch's waiting items end as a cancelled one's do: counted here, marked after the commit.
    const cancelledItems = to === "failed" ? await countWaiting(client, batchId) : 0;
    await appendAudit(
      client,
      [
        {
          ...auditActor(actor),
          action: to === "paused" ? "replay_batch.pause" : "replay_batch.fail",
          targetType: "replay_batch",
          targetId: batchId,
          before: { status: "running" },
          after: { status: to, ...(cancelledItems ? { cancelledItems } : {}) },
          reason,
        },
      ],
      now,
    );
    return true;
  });
  if (stopped && to === "failed") await cancelWaitingItems(pool, batchId, now);
  return stopped;
}

async function countWaiting(client: pg.PoolClient, batchId: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM replay_item WHERE batch_id = $1 AND status IN ('pending', 'retry')`,
    [batchId],
  );
  return rows[0]?.n ?? 0;
}

/** Statuses of the batch's most recently submitted items since the failure window opened (newest first). */
export async function recentSubmissions(pool: pg.Pool, batchId: string): Promise<{ statuses: string[]; threshold: number }> {
  const { rows } = await pool.query<{ status: string; failure_threshold: number }>(
    `SELECT i.status::text AS status, b.failure_threshold
     FROM replay_batch b JOIN LATERAL (
       SELECT status FROM replay_item
       WHERE batch_id = b.id AND submitted_at IS NOT NULL AND submitted_at >= coalesce(b.window_from, '-infinity')
       ORDER BY submitted_at DESC LIMIT 100
     ) i ON true
     WHERE b.id = $1`,
    [batchId],
  );
  return { statuses: rows.map((r) => r.status), threshold: rows[0]?.failure_threshold ?? 0.5 };
}
