import "server-only";
import { recordSettled } from "../ledger/record-settled";
import type pg from "pg";
import { appendAudit, prepareAudit, type AuditInput } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { DEFAULT_BACKOFF, retryDelayMs, type BackoffOptions } from "../pacing/backoff";
import { gaveUpReason } from "../../dead-letters/decisions";
import type { ClaimedItem } from "./claim-items";
import { writeRecordEffects, type RecordTouch } from "./record-effects";
import { compareIds } from "../../db/id-order";
import { holdBatchAgainstStop, holdBatchAgainstStopSql } from "../batch/stop-lock";
import type { RecordOutcome } from "./failure-rules";
import type { ItemStatus } from "../batch/batch-schemas";
import type { Sink, SinkResult, Submission } from "../sinks/sink";
import type { JsonValue } from "../../json/value";

// The outcome transaction: everything a group of items ends with, in ONE commit — item rows, the ledger (the
// built-in sink delivers here), the dead-letter records and their failure history, the batch's counters and
// one audit event per outcome. A commit per item cannot keep up (each waits for its own disk flush); a group is
// whatever a worker has ready when the previous commit returns: a whole page when unpaced, a few items at
// 1,000/s.
//
// Re-checks state under lock (documenso's assert-envelope-mutable pattern): only items still `running` and
// locked by this worker are written; anything else was swept from us and belongs to another worker now.

export type Resolution =
  /** to deliver to an in-transaction sink inside this transaction */
  | { item: ClaimedItem; type: "deliver"; submission: Submission; submittedAt: Date }
  /** a remote sink answered */
  | { item: ClaimedItem; type: "answered"; submission: Submission; submittedAt: Date; result: SinkResult }
  /** decided before submission */
  | { item: ClaimedItem; type: "decided"; outcome: "deduped" | "dropped" | "poison" | "cancelled"; reason: string | null }
  /** not submitted: back to the queue */
  | { item: ClaimedItem; type: "release" };

export interface OutcomeContext {
  batchId: string;
  workerId: string;
  actor: Actor;
  sink: Sink;
  maxAttempts: number;
  random: () => number;
  now: Date;
  backoff?: BackoffOptions;
}

/** The outcome context of a batch's items in this worker, at `now` (the group writer and the locked page build it). */
export function outcomeContext(
  batch: { id: string; sink: Sink; maxAttempts: number },
  worker: { workerId: string; actor: Actor; random: () => number; backoff?: BackoffOptions | undefined },
  now: Date,
): OutcomeContext {
  return {
    batchId: batch.id,
    workerId: worker.workerId,
    actor: worker.actor,
    sink: batch.sink,
    maxAttempts: batch.maxAttempts,
    random: worker.random,
    now,
    backoff: worker.backoff,
  };
}

export type FlushCounts = Record<
  "applied" | "deduped" | "dropped" | "poison" | "failed" | "cancelled" | "retry" | "released" | "lost",
  number
>;

interface ItemWrite {
  id: string;
  status: ItemStatus;
  attempts: number;
  runAt: Date | null;
  error: string | null;
  submittedAt: Date | null;
  finished: boolean;
  touch: RecordTouch | null;
  /** replay_item.sent (JSON text): what was submitted, kept for good; null leaves it as it is */
  sent: string | null;
}

/**
 * What an item keeps of its submission: the repair it was sent with and, when the repair changed the geometry,
 * the geometry the sink received (a valid one is the snapshot's, already on the item). Null for AFC taps.
 */
function sentJson(sub: Submission): string | null {
  if (!sub.repair) return null;
  const payload = sub.payload as { geometry?: JsonValue } | null;
  const geometry = sub.repair.outcome === "repaired" && payload !== null && typeof payload === "object" ? payload.geometry : undefined;
  return JSON.stringify(geometry === undefined ? sub.repair : { ...sub.repair, geometry });
}

const TERMINAL = new Set<ItemStatus>(["applied", "deduped", "dropped", "poison", "failed", "cancelled"]);

function decide(r: Resolution, settled: Map<string, "applied" | "deduped">, ctx: OutcomeContext): ItemWrite {
  const { item } = r;
  const base = {
    id: item.id,
    attempts: item.attempts,
    runAt: null,
    error: null,
    submittedAt: null,
    finished: true,
    touch: null,
    sent: null,
  };
  const touch = (outcome: RecordOutcome, reason: string | null, submitted: boolean): RecordTouch => ({
    deadLetterId: item.deadLetterId,
    outcome,
    reason,
    submitted,
  });
  switch (r.type) {
    case "release":
      return { ...base, status: item.attempts > 0 ? "retry" : "pending", finished: false };
    case "decided":
      return {
        ...base,
        status: r.outcome,
        error: r.reason,
        touch: r.outcome === "cancelled" ? null : touch(r.outcome, r.reason, false),
      };
    case "deliver": {
      const outcome = settled.get(item.id) ?? "deduped";
      return { ...base, status: outcome, submittedAt: r.submittedAt, sent: sentJson(r.submission), touch: touch(outcome, null, true) };
    }
    case "answered": {
      const res = r.result;
      const sent = { ...base, submittedAt: r.submittedAt, sent: sentJson(r.submission) };
      if (res.outcome !== "retry" && res.outcome !== "failed")
        return { ...sent, status: res.outcome, touch: touch(res.outcome, null, true) };
      // `failed` (a refusal, e.g. 400) is retried later with exponential backoff and jitter, and after the budget
      // becomes poison (record to quarantine, reason in its history), as the issue defines it; `retry` (408, 429,
      // 5xx, no answer) the same, honouring Retry-After.
      if (res.outcome === "failed" && res.permanent) {
        // Nothing was sent (the request could not be made): poison at once, not counted as a replay.
        return {
          ...sent,
          submittedAt: null,
          sent: null,
          status: "poison",
          attempts: item.attempts + 1,
          error: res.reason,
          touch: touch("poison", res.reason, false),
        };
      }
      const retryAfterMs = res.outcome === "retry" ? res.retryAfterMs : null;
      const attempts = item.attempts + 1;
      if (attempts >= ctx.maxAttempts) {
        const reason = gaveUpReason(attempts, res.reason);
        return { ...sent, status: "poison", attempts, error: reason, touch: touch("poison", reason, true) };
      }
      const delay = retryDelayMs(attempts, retryAfterMs, ctx.random, ctx.backoff ?? DEFAULT_BACKOFF);
      return { ...sent, status: "retry", attempts, error: res.reason, runAt: new Date(ctx.now.getTime() + delay), finished: false };
    }
  }
}

/**
 * Writes a group's outcomes in one transaction on `client` (BEGIN/COMMIT are the caller's). `locked`: the
 * caller's transaction locked these items itself (lockItems, locked-page.ts) and they are not leased: all of them
 * are ours, and an item released goes back untouched.
 */
export async function writeOutcomes(
  client: pg.PoolClient,
  group: Resolution[],
  ctx: OutcomeContext,
  opts: { locked?: boolean } = {},
): Promise<FlushCounts> {
  const counts: FlushCounts = { applied: 0, deduped: 0, dropped: 0, poison: 0, failed: 0, cancelled: 0, retry: 0, released: 0, lost: 0 };
  // A pause or cancel either committed before the batch's status is read below, and nothing here is delivered, or
  // waits for this transaction's commit: the stop lock (stop-lock.ts) is taken here — with the leased items, in
  // ownedItems — and the status read is a later statement, whose snapshot sees what committed while this waited.
  let mine: Set<string>;
  if (opts.locked) {
    mine = new Set(group.map((r) => r.item.id));
    await holdBatchAgainstStop(client, ctx.batchId);
  } else mine = await ownedItems(client, group, ctx.workerId, ctx.batchId, ctx.sink.mode === "remote");
  counts.lost = group.length - mine.size;
  const ours = group.filter((r) => mine.has(r.item.id));
  const checked = await settleDeliveredRecords(client, ctx.batchId, ours, ctx.now);
  const batchStatus = checked.batchStatus;
  // A pause or cancel that committed since these items were scheduled stops what has not been delivered yet;
  // in a cancelled (or failed) batch nothing goes back to the queue.
  const ended = batchStatus === "cancelled" || batchStatus === "failed";
  const resolutions = ours.map((r): Resolution => {
    const undelivered = r.type === "release" || (r.type === "deliver" && batchStatus !== "running");
    if (undelivered) {
      return ended
        ? { item: r.item, type: "decided", outcome: "cancelled", reason: `batch ${batchStatus} before delivery` }
        : { item: r.item, type: "release" };
    }
    if (r.type !== "deliver" || checked.settled.has(r.item.deadLetterId)) return r;
    const now = checked.records.get(r.item.deadLetterId) ?? "deleted";
    return { item: r.item, type: "decided", outcome: "cancelled", reason: `the record is ${now} now (approved when batched)` };
  });

  const toDeliver = resolutions.flatMap((r) => (r.type === "deliver" ? [r.submission] : []));
  const settled =
    toDeliver.length > 0 && ctx.sink.mode === "in-transaction"
      ? await ctx.sink.settle(client, toDeliver, ctx.now)
      : new Map<string, "applied" | "deduped">();
  const writes = resolutions.map((r) => decide(r, settled, ctx));

  // Keys a remote sink settled go into the ledger too, so a later batch dedupes them without sending. That
  // includes items swept from us meanwhile (a stalled worker): the acknowledgement is a fact whoever owns the
  // item now, and the new owner, which checks the ledger when it claims, then counts it deduped without sending.
  const remoteSettled = group.flatMap((r) =>
    r.type === "answered" && (r.result.outcome === "applied" || r.result.outcome === "deduped") ? [r.submission] : [],
  );
  if (remoteSettled.length > 0 && ctx.sink.mode === "remote") await recordSettled(client, remoteSettled, ctx.now, ctx.sink.ledgerOrigin);

  // The records of delivered items became `replayed` above (settleDeliveredRecords): what recordEffect says for
  // applied and deduped alike, so the ledger's answer does not change it.
  const touches = writes.flatMap((w) => (w.touch && !checked.settledItems.has(w.id) ? [w.touch] : []));
  const records = await writeRecordEffects(client, touches, { batchId: ctx.batchId, now: ctx.now });

  for (const w of writes) {
    if (w.status === "pending" || (w.status === "retry" && w.runAt === null)) counts.released++;
    else if (w.status !== "running") counts[w.status as keyof FlushCounts]++;
  }
  const itemsById = new Map(resolutions.map((r) => [r.item.id, r.item]));
  const audits: AuditInput[] = writes
    .filter((w) => w.finished || (w.status === "retry" && w.runAt !== null))
    .map((w) => {
      const item = itemsById.get(w.id) as ClaimedItem;
      const record = records.changes.get(item.deadLetterId);
      return {
        ...auditActor(ctx.actor),
        action: `replay.${w.status}`,
        targetType: "dead_letter",
        targetId: item.deadLetterId,
        after: {
          batchId: ctx.batchId,
          itemId: item.id,
          seq: item.seq,
          idempotencyKey: item.idempotencyKey,
          outcome: w.status,
          attempts: w.attempts,
          ...(w.error ? { error: w.error } : {}),
          ...(w.runAt ? { retryAt: w.runAt.toISOString() } : {}),
          ...(record ? { recordStatus: record.after } : {}),
        },
        ...(record ? { before: { recordStatus: record.before } } : {}),
      };
    });
  // Prepared (normalised, canonical JSON) before the batch row is taken below: that row is held until commit and
  // every lane's commit and the rate limiter wait for it, so only the chain's hashes and the insert happen under it.
  const audit = prepareAudit(audits, ctx.now);

  // A locked item released was never marked running: nothing to write back.
  const changed = opts.locked ? writes.filter((w) => w.finished || w.runAt !== null) : writes;
  const terminal = writes.some((w) => TERMINAL.has(w.status));
  if (changed.length > 0 || terminal) {
    // Items and the batch's counters in one statement. Last before the audit: the batch row comes after the
    // records in the lock order (claim-items.ts), and lanes wait for each other on it until they commit. A
    // data-modifying CTE the main query does not read runs after it: the qual's read of `items` makes the items'
    // update (a page's worth of rows) run first, before the batch row is locked, not while every lane waits.
    await client.query(
      `WITH items AS (
         UPDATE replay_item i SET status = u.status, attempts = u.attempts, run_at = coalesce(u.run_at, i.run_at),
           last_error = coalesce(u.error, i.last_error), submitted_at = coalesce(u.submitted_at, i.submitted_at),
           finished_at = CASE WHEN u.finished THEN $8::timestamptz END, locked_by = NULL, locked_until = NULL,
           sent = coalesce(u.sent, i.sent)
         FROM unnest($1::bigint[], $2::"ReplayItemStatus"[], $3::int[], $4::timestamptz[], $5::text[], $6::timestamptz[], $7::bool[], $17::jsonb[])
           AS u(id, status, attempts, run_at, error, submitted_at, finished, sent)
         WHERE i.id = u.id AND i.id = ANY($1::bigint[])
         RETURNING 1)
       UPDATE replay_batch SET applied_count = applied_count + $10, deduped_count = deduped_count + $11,
         dropped_count = dropped_count + $12, poison_count = poison_count + $13, failed_count = failed_count + $14,
         cancelled_count = cancelled_count + $15, updated_at = $8
       WHERE id = $9 AND $16::bool AND (SELECT count(*) FROM items) >= 0`,
      [
        changed.map((w) => w.id),
        changed.map((w) => w.status),
        changed.map((w) => w.attempts),
        changed.map((w) => w.runAt),
        changed.map((w) => w.error),
        changed.map((w) => w.submittedAt),
        changed.map((w) => w.finished),
        ctx.now,
        ctx.batchId,
        counts.applied,
        counts.deduped,
        counts.dropped,
        counts.poison,
        counts.failed,
        counts.cancelled,
        terminal,
        changed.map((w) => w.sent),
      ],
    );
  }

  await appendAudit(client, audit, ctx.now);
  return counts;
}

/**
 * The group's items still leased to this worker, locked in id order, and then — same statement, the lock order —
 * the batch's stop lock, shared (stop-lock.ts). Anything else was swept from us.
 *
 * `asyncCommit` (a remote sink's answers): the transaction commits without waiting for its WAL flush, as the claim
 * does. Every lane's commit waits for the batch row and the audit head, held until commit, so a flush there
 * would be paid once per commit by all of them in turn. A database crash can then lose the last moments
 * (wal_writer_delay, 200 ms by default) of outcomes, whole (items, ledger keys, records, audit events together): their items come back as a
 * crashed worker's do and are sent again under the same key, which the receiver deduplicates — what a remote
 * sink promises anyway. The built-in ledger, whose effect is the commit itself, stays synchronous.
 */
async function ownedItems(
  client: pg.PoolClient,
  group: Resolution[],
  workerId: string,
  batchId: string,
  asyncCommit: boolean,
): Promise<Set<string>> {
  const owned = await client.query<{ ids: string[] }>(
    `WITH owned AS MATERIALIZED (
       SELECT id FROM replay_item WHERE id = ANY($1::bigint[]) AND locked_by = $2 AND status = 'running'
       ORDER BY replay_item.id FOR UPDATE) -- the bigint, not a text alias: numeric lock order, as everywhere
     -- The aggregate needs every row locked before the stop lock is taken.
     SELECT o.ids, ${holdBatchAgainstStopSql("$3")},
       CASE WHEN $4::bool THEN set_config('synchronous_commit', 'off', true) END
     FROM (SELECT coalesce(array_agg(id::text), '{}') AS ids FROM owned) o`,
    [group.map((r) => r.item.id), workerId, batchId, asyncCommit],
  );
  return new Set(owned.rows[0]?.ids ?? []);
}

interface DeliveryCheck {
  /** the batch's status, read after the stop lock ("cancelled" when it is gone) */
  batchStatus: string;
  /** records of items to deliver that were approved and are now `replayed` */
  settled: Set<string>;
  /** the items to deliver whose records those are */
  settledItems: Set<string>;
  /** the current status of the records of deliveries not marked replayed while the batch runs (the cancel reason) */
  records: Map<string, string>;
}

/**
 * The batch's status and, for deliveries to an in-transaction sink, the re-check of their records where it
 * counts: one UPDATE marks the records still `approved` as `replayed` (replay_count + 1) when the batch is still
 * running. Under READ COMMITTED an UPDATE waits for a concurrent change to a row and then re-tests its WHERE on
 * the newest version, so the check and the write see the same row: a record an analyst quarantined, reopened or
 * edited since its item was claimed is not delivered (its item is cancelled, as at claim time); one changed while
 * this transaction holds the row waits for the commit and then finds it replayed (a version conflict for the
 * analyst, not a silent replay of a record they had just taken back). No SELECT … FOR UPDATE first: a row lock
 * writes the tuple (and WAL) once more, about as costly as the update itself (bench:replay --sql-timing). The
 * rows are then locked in the order the plan visits them (id order for an index scan on the sorted ids, heap order
 * for a bitmap scan), not always the engine's id order: a transaction that locks two of these records the other
 * way round meets a deadlock, which PostgreSQL breaks by failing one side with 40P01 — transient, so the page (or
 * the group) is rolled back and retried, never half written. Only the records left unchanged are read again, for
 * the reason their items are cancelled.
 */
async function settleDeliveredRecords(client: pg.PoolClient, batchId: string, group: Resolution[], now: Date): Promise<DeliveryCheck> {
  const deliver = group.filter((r) => r.type === "deliver");
  const ids = deliver.map((r) => r.item.deadLetterId).sort(compareIds);
  const { rows } = await client.query<{ batch_status: string | null; replayed: string[] }>(
    `WITH b AS (SELECT status::text AS status FROM replay_batch WHERE id = $2),
     u AS (
       UPDATE dead_letter d SET status = 'replayed', replay_count = d.replay_count + 1, version = d.version + 1, updated_at = $3
       WHERE d.id = ANY($1::bigint[]) AND d.status = 'approved' AND (SELECT status FROM b) = 'running'
       RETURNING d.id)
     SELECT (SELECT status FROM b) AS batch_status, coalesce((SELECT array_agg(id::text) FROM u), '{}') AS replayed`,
    [ids, batchId, now],
  );
  const batchStatus = rows[0]?.batch_status ?? "cancelled";
  const settled = new Set(rows[0]?.replayed ?? []);
  const records = new Map<string, string>();
  const unchanged = batchStatus === "running" ? ids.filter((id) => !settled.has(id)) : [];
  if (unchanged.length > 0) {
    const now = await client.query<{ id: string; status: string }>(
      "SELECT id::text AS id, status::text AS status FROM dead_letter WHERE id = ANY($1::bigint[])",
      [unchanged],
    );
    for (const r of now.rows) records.set(r.id, r.status);
  }
  return {
    batchStatus,
    settled,
    settledItems: new Set(deliver.filter((r) => settled.has(r.item.deadLetterId)).map((r) => r.item.id)),
    records,
  };
}
