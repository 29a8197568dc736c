import "server-only";
import { OPEN_STANDING } from "../../rules/standing-queue";
import { WORKER_ALIVE } from "../live-workers";
import type pg from "pg";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { utcMicrosSql } from "../../time/instant";
import { inTransaction } from "../../db/transaction";
import type { ApprovedRepair, DeadLetterKind } from "@/lib/vocabulary/record";
import { readPin } from "./replay-repair";

// The replay queue's SQL, one statement per operation (graphile-worker's getJobs.ts is the model): claim with
// a CTE `… FOR UPDATE SKIP LOCKED` then `UPDATE … RETURNING`; everything that finishes or returns an item
// matches `locked_by = $worker`, so a worker whose lease was swept can no longer touch the item.
//
// Lock order, everywhere (rows locked in arbitrary order while completing batches deadlock: graphile-worker
// issue #636): replay_item rows by id → the batch's stop lock (stop-lock.ts) → dead_letter rows by id (the
// outcome's single-UPDATE settles lock them in plan order and rely on deadlock detection: write-outcomes.ts) →
// ledger_entry by key → entity_state by (kind, key) → the replay_batch row → the audit chain's head row (audit/append.ts).
// Statements that only maintain leases (heartbeat, sweep) take item rows with SKIP LOCKED and never wait.
//
// `set_config('synchronous_commit', 'off', true)` makes the claim's own commit asynchronous: losing a claim
// in a database crash only returns its items to the queue, and the outcome transaction (synchronous) flushes
// the claim with it. It saves one disk flush per page.

export interface ClaimedItem {
  id: string;
  seq: number;
  batchId: string;
  deadLetterId: string;
  kind: DeadLetterKind;
  idempotencyKey: string;
  entityKey: string | null;
  /** UTC RFC 3339 to the microsecond, as stored (lib/time/instant.ts) */
  observedAt: string;
  /** the payload snapshotted when the batch was created */
  payload: unknown;
  /** the repair the record was approved with (snapshotted with the payload); null: approved without one */
  approvedRepair: ApprovedRepair | null;
  /** failed submissions so far */
  attempts: number;
  leaseLosses: number;
  /** the record as it is now */
  recordStatus: string;
  replayCount: number;
  /** the record's payload changed since the snapshot */
  edited: boolean;
  /** the key is already in the ledger (applied earlier, or imported from an external ledger) */
  settled: boolean;
}

interface ClaimRow {
  id: string;
  seq: number;
  batch_id: string;
  dead_letter_id: string;
  kind: DeadLetterKind;
  idempotency_key: string;
  entity_key: string | null;
  observed_at: string;
  payload: unknown;
  approved_repair: unknown;
  attempts: number;
  lease_losses: number;
  record_status: string;
  replay_count: number;
  edited: boolean;
  settled: boolean;
}

/**
 * The next claimable items of a running batch ($1), in seq order, at most `limit` (the parameter named), locked
 * FOR UPDATE SKIP LOCKED: items whose entity has an earlier unfinished item are skipped (so one entity's
 * observations are submitted one after another, whichever worker holds them), and so are retries whose run_at
 * has not come. Seq order rather than the engine's id order (see the top): SKIP LOCKED never waits.
 */
function pick(limit: string): string {
  return `SELECT i.id
       FROM replay_item i
       WHERE i.batch_id = $1 AND i.status IN ('pending', 'retry') AND i.run_at <= now()
         AND EXISTS (SELECT 1 FROM replay_batch b WHERE b.id = $1 AND b.status = 'running')
         AND (i.entity_key IS NULL OR NOT EXISTS (
           SELECT 1 FROM replay_item e
           WHERE e.batch_id = i.batch_id AND e.entity_key = i.entity_key AND e.seq < i.seq
             AND e.status IN ('pending', 'running', 'retry')))
       ORDER BY i.seq
       LIMIT ${limit}
       FOR UPDATE OF i SKIP LOCKED`;
}

/** What a claim returns of an item (i: replay_item, d: its dead_letter). */
const CLAIMED_COLUMNS = `i.id::text AS id, i.seq, i.batch_id::text AS batch_id, i.dead_letter_id::text AS dead_letter_id, i.kind,
       i.idempotency_key, i.entity_key, ${utcMicrosSql("i.observed_at")} AS observed_at, i.snapshot->'payload' AS payload, i.snapshot->'approvedRepair' AS approved_repair, i.attempts, i.lease_losses,
       d.status::text AS record_status, d.replay_count, (d.payload IS DISTINCT FROM i.snapshot->'payload') AS edited,
       EXISTS (SELECT 1 FROM ledger_entry l WHERE l.idempotency_key = i.idempotency_key) AS settled`;

function toClaimed(rows: ClaimRow[]): ClaimedItem[] {
  return rows
    .map((r) => ({
      id: r.id,
      seq: r.seq,
      batchId: r.batch_id,
      deadLetterId: r.dead_letter_id,
      kind: r.kind,
      idempotencyKey: r.idempotency_key,
      entityKey: r.entity_key,
      observedAt: r.observed_at,
      payload: r.payload,
      approvedRepair: readPin(r.approved_repair),
      attempts: r.attempts,
      leaseLosses: r.lease_losses,
      recordStatus: r.record_status,
      replayCount: r.replay_count,
      edited: r.edited,
      settled: r.settled,
    }))
    .sort((a, b) => a.seq - b.seq);
}

/** Claims up to `limit` items (pick) under a lease: `running`, locked_by this worker until the lease runs out. */
export async function claimItems(
  db: pg.Pool | pg.PoolClient,
  opts: { batchId: string; workerId: string; limit: number; leaseMs: number },
): Promise<ClaimedItem[]> {
  const { rows } = await db.query<ClaimRow>(
    `WITH async AS (SELECT set_config('synchronous_commit', 'off', true)),
     picked AS (${pick("$3")})
     UPDATE replay_item i
     SET status = 'running', locked_by = $2, locked_until = now() + $4 * interval '1 millisecond'
     FROM dead_letter d, async
     -- ARRAY(…) rather than a join with the CTE: the planner otherwise hashes the whole table to find 500 rows.
     WHERE i.id = ANY (ARRAY(SELECT id FROM picked)) AND d.id = i.dead_letter_id
     RETURNING ${CLAIMED_COLUMNS}`,
    [opts.batchId, opts.workerId, opts.limit, opts.leaseMs],
  );
  return toClaimed(rows);
}

/**
 * Locks up to `limit` items (pick) for the open transaction on `client` without writing them (locked-page.ts):
 * they stay pending to everyone else, who skips them, until the transaction records their outcomes and commits
 * — or rolls back, which leaves them exactly as they were. Same columns as claimItems. Sets the transaction's
 * idle timeout in the same statement when asked (one round trip fewer per page).
 */
export async function lockItems(
  client: pg.PoolClient,
  opts: { batchId: string; limit: number; idleTimeoutMs?: number },
): Promise<ClaimedItem[]> {
  const { rows } = await client.query<ClaimRow>(
    `WITH cfg AS (
       SELECT CASE WHEN $3::text IS NOT NULL THEN set_config('idle_in_transaction_session_timeout', $3::text, true) END),
     picked AS (${pick("$2")})
     SELECT ${CLAIMED_COLUMNS}
     FROM cfg, replay_item i JOIN dead_letter d ON d.id = i.dead_letter_id
     WHERE i.id = ANY (ARRAY(SELECT id FROM picked))`,
    [opts.batchId, opts.limit, opts.idleTimeoutMs === undefined ? null : String(Math.ceil(opts.idleTimeoutMs))],
  );
  return toClaimed(rows);
}

/**
 * Gives claimed, unsubmitted items back to the queue (the error path; pages normally release through their
 * outcome transaction). Items of a batch that ended meanwhile are cancelled instead, and counted.
 */
export async function releaseItems(db: pg.Pool | pg.PoolClient, workerId: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rows } = await db.query<{ n: number }>(
    `WITH mine AS (
       SELECT i.id FROM replay_item i WHERE i.id = ANY($1::bigint[]) AND i.locked_by = $2 AND i.status = 'running'
       ORDER BY i.id FOR UPDATE
     ), released AS (
       UPDATE replay_item i SET
         status = CASE WHEN b.status IN ('cancelled', 'failed') THEN 'cancelled'::"ReplayItemStatus"
                       WHEN i.attempts > 0 THEN 'retry'::"ReplayItemStatus" ELSE 'pending'::"ReplayItemStatus" END,
         finished_at = CASE WHEN b.status IN ('cancelled', 'failed') THEN now() END,
         locked_by = NULL, locked_until = NULL
       FROM mine, replay_batch b WHERE i.id = mine.id AND b.id = i.batch_id
       RETURNING i.batch_id, i.status
     ), counted AS (
       UPDATE replay_batch b SET cancelled_count = b.cancelled_count + c.n
       FROM (SELECT batch_id, count(*)::int AS n FROM released WHERE status = 'cancelled' GROUP BY batch_id) c
       WHERE b.id = c.batch_id
     )
     SELECT count(*)::int AS n FROM released`,
    [ids, workerId],
  );
  return rows[0]?.n ?? 0;
}

/** Registers the worker (or marks it alive again) with the lease it claims with. */
export async function registerWorker(db: pg.Pool, worker: { id: string; hostname: string; pid: number }, leaseMs: number): Promise<void> {
  await db.query(
    `INSERT INTO worker (id, hostname, pid, lease_ms) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), lease_ms = EXCLUDED.lease_ms`,
    [worker.id, worker.hostname, worker.pid, leaseMs],
  );
}

/**
 * Marks this worker alive and extends the leases of the items it holds (`held`: claimed, not yet finished or
 * released). Items being finished right now are skipped, not waited for. Items locked by this worker that it
 * no longer holds and whose lease ran out — left behind by an error between claim and release — are given
 * back; a held item is renewed every third of a lease, so it never looks like that.
 */
export async function heartbeat(
  db: pg.Pool,
  worker: { id: string; hostname: string; pid: number },
  leaseMs: number,
  held: string[],
): Promise<{ renewed: number; orphans: number }> {
  // An upsert: a worker cut off long enough for another one to delete its row comes back as alive.
  await registerWorker(db, worker, leaseMs);
  const renewed = await db.query(
    `WITH mine AS (
       SELECT id FROM replay_item WHERE id = ANY($3::bigint[]) AND locked_by = $1 AND status = 'running'
       ORDER BY id FOR UPDATE SKIP LOCKED
     )
     UPDATE replay_item i SET locked_until = now() + $2 * interval '1 millisecond' FROM mine WHERE i.id = mine.id`,
    [worker.id, leaseMs, held],
  );
  const orphans = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM replay_item
     WHERE status = 'running' AND locked_by = $1 AND locked_until < now() AND NOT (id = ANY($2::bigint[]))`,
    [worker.id, held],
  );
  const released = await releaseItems(
    db,
    worker.id,
    orphans.rows.map((r) => r.id),
  );
  return { renewed: renewed.rowCount ?? 0, orphans: released };
}

/**
 * Returns the items of dead workers to the queue, counting the loss against the item; items of a cancelled or
 * failed batch are cancelled instead. An item is taken back when its lease expired AND its worker has not
 * heart-beaten for two leases of its own (it beats every third of one): a worker that is merely slow (a
 * loaded database, a beat stuck behind its lanes' queries) keeps its items, so an answer it already holds is
 * recorded instead of the key being sent again. Each worker is judged by its own lease (`--lease-ms`), not by
 * the sweeper's.
 * One statement, at most `limit` items, so a sweep never holds many locks.
 */
export async function sweepExpired(db: pg.Pool, limit = 1000): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH expired AS (
       SELECT i.id FROM replay_item i
       WHERE i.status = 'running' AND i.locked_until < now()
         AND NOT EXISTS (SELECT 1 FROM worker w WHERE w.id = i.locked_by AND ${WORKER_ALIVE})
       ORDER BY i.id LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), swept AS (
       UPDATE replay_item i SET
         status = CASE WHEN b.status IN ('cancelled', 'failed') THEN 'cancelled'::"ReplayItemStatus"
                       WHEN i.attempts > 0 THEN 'retry'::"ReplayItemStatus" ELSE 'pending'::"ReplayItemStatus" END,
         lease_losses = i.lease_losses + 1,
         last_error = 'lease expired: worker ' || coalesce(i.locked_by, '?') || ' stopped renewing it',
         finished_at = CASE WHEN b.status IN ('cancelled', 'failed') THEN now() END,
         locked_by = NULL, locked_until = NULL
       FROM expired, replay_batch b
       WHERE i.id = expired.id AND b.id = i.batch_id
       RETURNING i.batch_id, i.status
     ), counted AS (
       UPDATE replay_batch b SET cancelled_count = b.cancelled_count + c.n
       FROM (SELECT batch_id, count(*)::int AS n FROM swept WHERE status = 'cancelled' GROUP BY batch_id) c
       WHERE b.id = c.batch_id
     )
     SELECT count(*)::int AS n FROM swept`,
    [limit],
  );
  return rows[0]?.n ?? 0;
}

/** Marks a running batch completed when none of its items is unfinished (a standing one once its rule version no longer decides); audited. */
export async function completeIfDone(pool: pg.Pool, batchId: string, actor: Actor, now: Date): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{
      total: number;
      applied_count: number;
      deduped_count: number;
      dropped_count: number;
      poison_count: number;
      failed_count: number;
      cancelled_count: number;
    }>(
      `UPDATE replay_batch b SET status = 'completed', finished_at = $2, updated_at = $2, status_reason = NULL
       WHERE b.id = $1 AND b.status = 'running' AND NOT ${OPEN_STANDING}
         AND NOT EXISTS (SELECT 1 FROM replay_item i WHERE i.batch_id = b.id AND i.status IN ('pending', 'running', 'retry'))
       RETURNING total, applied_count, deduped_count, dropped_count, poison_count, failed_count, cancelled_count`,
      [batchId, now],
    );
    const done = rows[0];
    if (!done) return false;
    await appendAudit(
      client,
      [
        {
          ...auditActor(actor),
          action: "replay_batch.completed",
          targetType: "replay_batch",
          targetId: batchId,
          before: { status: "running" },
          after: {
            status: "completed",
            total: done.total,
            applied: done.applied_count,
            deduped: done.deduped_count,
            dropped: done.dropped_count,
            poison: done.poison_count,
            failed: done.failed_count,
            cancelled: done.cancelled_count,
          },
        },
      ],
      now,
    );
    return true;
  });
}

/** Batches that have a running status and no unfinished item (missed by a worker that died at the end). */
export async function runningBatchesToComplete(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT b.id::text AS id FROM replay_batch b
     WHERE b.status = 'running' AND NOT ${OPEN_STANDING}
       AND NOT EXISTS (SELECT 1 FROM replay_item i WHERE i.batch_id = b.id AND i.status IN ('pending', 'running', 'retry'))`,
  );
  return rows.map((r) => r.id);
}

/** Cancelled or failed batches that still have waiting items (their canceller stopped before marking them). */
export async function endedBatchesWithWaitingItems(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT b.id::text AS id FROM replay_batch b
     WHERE b.status IN ('cancelled', 'failed')
       AND EXISTS (SELECT 1 FROM replay_item i WHERE i.batch_id = b.id AND i.status IN ('pending', 'retry'))`,
  );
  return rows.map((r) => r.id);
}
