import "server-only";
import { batchInScopeSql, paramsOf, type RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import type { BatchStatus, BatchView, ItemsPage, ItemsQuery, ItemStatus, OutcomeCounts, RateSeries, Selection } from "./batch-schemas";
import { effectiveThrottle } from "../pacing/throttle";
import { averageRate } from "./progress";
import { WORKER_ALIVE } from "../live-workers";
import { utcMicrosSql } from "../../time/instant";
import { storedSinkView } from "../sinks/registry.server";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// Reading batches for the API, the pages and the CLI. Counts come from the batch's counters (written in the
// same transactions as the items), the achieved rate and the chart from the partial index on submitted_at,
// so a page polling every second never scans a batch's items.

interface BatchRow {
  id: string;
  status: BatchStatus;
  status_reason: string | null;
  created_by_id: string;
  created_by_email: string | null;
  approved_by_id: string | null;
  approved_by_email: string | null;
  /** as stored (stored-sink.ts): an HTTP sink sealed */
  sink: unknown;
  selection: Selection;
  rate_per_second: number;
  throttle: number;
  throttled_at: Date | null;
  page_size: number;
  max_replays: number;
  max_attempts: number;
  failure_threshold: number;
  repair_method: string;
  repair_policy: string;
  repair_override: boolean;
  single_approver_limit: number | null;
  total: number;
  rule_id: string | null;
  rule_version: number | null;
  rule_name: string | null;
  destinations: { source: string; destination: string; count: number }[] | null;
  applied_count: number;
  deduped_count: number;
  dropped_count: number;
  poison_count: number;
  failed_count: number;
  retrying: number;
  cancelled_count: number;
  recent: number;
  live_workers: number;
  created_at: Date;
  approved_at: Date | null;
  started_at: Date | null;
  first_submitted_at: Date | null;
  /** once finished: items submitted and the last submission (the whole run's rate) */
  submitted: number | null;
  last_submitted_at: Date | null;
  window_from: Date | null;
  finished_at: Date | null;
}

/** Submissions in the last RECENT_S seconds give the achieved rate. */
const RECENT_S = 10;

const SELECT_BATCH = `SELECT b.id::text AS id, b.status::text AS status, b.status_reason, b.created_by_id, cu.email AS created_by_email,
    b.approved_by_id, au.email AS approved_by_email, b.sink, b.selection, b.rate_per_second, b.throttle, b.throttled_at,
    b.page_size, b.max_replays, b.max_attempts, b.failure_threshold, b.repair_method, b.repair_policy, b.repair_override, b.single_approver_limit, b.total, b.destinations,
    b.rule_id::text AS rule_id, b.rule_version, (SELECT r.name FROM rule r WHERE r.id = b.rule_id) AS rule_name,
    b.applied_count, b.deduped_count, b.dropped_count, b.poison_count, b.failed_count, b.cancelled_count,
    -- Since the (re)start when that is more recent, as the span it is divided by (toView): submissions from before
    -- a pause counted over the seconds since the resume showed 6/s for a batch paced at 1/s.
    (SELECT count(*)::int FROM replay_item i WHERE i.batch_id = b.id
       AND i.submitted_at > greatest($1::timestamptz - interval '${RECENT_S} seconds', coalesce(b.window_from, '-infinity'))) AS recent,
    (SELECT count(*)::int FROM replay_item i WHERE i.batch_id = b.id AND i.status = 'retry') AS retrying,
    (SELECT count(*)::int FROM worker w WHERE ${WORKER_ALIVE}) AS live_workers,
    b.created_at, b.approved_at, b.started_at, b.window_from, b.finished_at,
    -- The run's rate counts from its first submission: a batch started before any worker ran did not go slower.
    (SELECT min(i.submitted_at) FROM replay_item i WHERE i.batch_id = b.id AND i.submitted_at IS NOT NULL) AS first_submitted_at,
    -- Only once ended (a subquery in a CASE branch not taken is not run): a running batch is polled every second.
    CASE WHEN b.finished_at IS NOT NULL THEN
      (SELECT count(*)::int FROM replay_item i WHERE i.batch_id = b.id AND i.submitted_at IS NOT NULL) END AS submitted,
    CASE WHEN b.finished_at IS NOT NULL THEN
      (SELECT max(i.submitted_at) FROM replay_item i WHERE i.batch_id = b.id AND i.submitted_at IS NOT NULL) END AS last_submitted_at
  FROM replay_batch b LEFT JOIN "user" cu ON cu.id = b.created_by_id LEFT JOIN "user" au ON au.id = b.approved_by_id`;

function toView(r: BatchRow, now: Date): BatchView {
  const counts: OutcomeCounts = {
    applied: r.applied_count,
    deduped: r.deduped_count,
    dropped: r.dropped_count,
    poison: r.poison_count,
    // failed: items whose last submission failed and that wait for their retry (they end applied, deduped or
    // poison), plus items of older batches that ended failed.
    failed: r.failed_count + r.retrying,
    cancelled: r.cancelled_count,
    pending: 0,
  };
  const finished = counts.applied + counts.deduped + counts.dropped + counts.poison + counts.failed + counts.cancelled;
  counts.pending = Math.max(0, r.total - finished);
  // In a cancelled or failed batch nothing waits any more: its waiting items are being marked cancelled in
  // chunks after the cancel (apply-batch-action.ts cancelWaitingItems); count them so from the start.
  if (r.status === "cancelled" || r.status === "failed") {
    counts.cancelled += counts.pending;
    counts.pending = 0;
  }
  // A batch that is not running or paused is held back by nothing: 1, whatever the sink last asked.
  const throttle =
    r.status === "running" || r.status === "paused" ? effectiveThrottle({ throttle: r.throttle, throttledAt: r.throttled_at }, now) : 1;
  // Over the last RECENT_S seconds, or since the (re)start when that is more recent.
  const since = r.window_from ? (now.getTime() - r.window_from.getTime()) / 1000 : RECENT_S;
  const span = Math.max(1, Math.min(RECENT_S, since));
  // Only while running: a paused batch submits nothing, and its last seconds before the pause are not a rate it has.
  const achievedRate = r.status === "running" && r.recent > 0 ? r.recent / span : null;
  const rate = r.status === "running" && r.live_workers > 0 ? Math.min(r.rate_per_second * throttle, achievedRate ?? Infinity) : 0;
  const etaSeconds = rate > 0 && counts.pending > 0 ? counts.pending / rate : null;
  const eta = etaSeconds === null ? null : new Date(now.getTime() + etaSeconds * 1000).toISOString();
  return {
    id: r.id,
    status: r.status,
    statusReason: r.status_reason,
    createdBy: { id: r.created_by_id, email: r.created_by_email },
    approvedBy: r.approved_by_id ? { id: r.approved_by_id, email: r.approved_by_email } : null,
    sink: storedSinkView(r.sink),
    selection: r.selection,
    ratePerSecond: r.rate_per_second,
    throttle,
    pageSize: r.page_size,
    maxReplays: r.max_replays,
    maxAttempts: r.max_attempts,
    failureThreshold: r.failure_threshold,
    repair: { method: r.repair_method, policy: r.repair_policy, override: r.repair_override },
    total: r.total,
    rule: r.rule_id !== null && r.rule_name !== null ? { id: r.rule_id, name: r.rule_name, version: r.rule_version ?? 0 } : null,
    // Kept at creation, when every one was checked against its source's options.destinations.
    destinations: r.destinations?.map((d) => ({ ...d, allowed: true })) ?? null,
    counts,
    achievedRate,
    averageRate: averageRate({ submitted: r.submitted ?? 0, firstAt: r.first_submitted_at, lastAt: r.last_submitted_at }, r.finished_at),
    liveWorkers: r.live_workers,
    eta,
    etaSeconds,
    createdAt: r.created_at.toISOString(),
    approvedAt: r.approved_at?.toISOString() ?? null,
    singleApproverLimit: r.single_approver_limit,
    startedAt: r.started_at?.toISOString() ?? null,
    finishedAt: r.finished_at?.toISOString() ?? null,
  };
}

export async function getBatch(db: pg.Pool | pg.PoolClient, scope: RecordScope, id: string, now: Date): Promise<BatchView> {
  const values: unknown[] = [now, id];
  const { rows } = await db.query<BatchRow>(`${SELECT_BATCH} WHERE b.id = $2 AND ${batchInScopeSql(scope, paramsOf(values))}`, values);
  const row = rows[0];
  if (!row) throw new AppError("not_found", `replay batch ${id} not found`);
  return toView(row, now);
}

export async function listBatches(
  db: pg.Pool | pg.PoolClient,
  scope: RecordScope,
  q: { status?: BatchStatus | undefined; limit: number },
  now: Date,
): Promise<BatchView[]> {
  const values: unknown[] = [now, q.status ?? null, q.limit];
  const { rows } = await db.query<BatchRow>(
    `${SELECT_BATCH} WHERE ($2::"ReplayBatchStatus" IS NULL OR b.status = $2) AND ${batchInScopeSql(scope, paramsOf(values))}
     ORDER BY b.id DESC LIMIT $3`,
    values,
  );
  return rows.map((r) => toView(r, now));
}

interface ItemRow {
  id: string;
  seq: number;
  dead_letter_id: string;
  kind: DeadLetterKind;
  idempotency_key: string;
  entity_key: string | null;
  observed_at: string;
  status: ItemStatus;
  attempts: number;
  last_error: string | null;
  submitted_at: Date | null;
  finished_at: Date | null;
  run_at: Date;
}

export async function listItems(db: pg.Pool | pg.PoolClient, scope: RecordScope, batchId: string, q: ItemsQuery): Promise<ItemsPage> {
  const scoped: unknown[] = [batchId];
  const exists = await db.query(`SELECT 1 FROM replay_batch b WHERE b.id = $1 AND ${batchInScopeSql(scope, paramsOf(scoped))}`, scoped);
  if (exists.rowCount === 0) throw new AppError("not_found", `replay batch ${batchId} not found`);
  const { rows } = await db.query<ItemRow>(
    `SELECT id::text AS id, seq, dead_letter_id::text AS dead_letter_id, kind, idempotency_key, entity_key, ${utcMicrosSql("observed_at")} AS observed_at,
       status::text AS status, attempts, last_error, submitted_at, finished_at, run_at
     FROM replay_item
     WHERE batch_id = $1 AND seq > $2 AND ($3::"ReplayItemStatus" IS NULL OR status = $3)
     ORDER BY seq LIMIT $4`,
    [batchId, q.cursor ?? 0, q.status ?? null, q.limit + 1],
  );
  const page = rows.slice(0, q.limit);
  return {
    items: page.map((r) => ({
      id: r.id,
      seq: r.seq,
      deadLetterId: r.dead_letter_id,
      kind: r.kind,
      idempotencyKey: r.idempotency_key,
      entityKey: r.entity_key,
      observedAt: r.observed_at,
      status: r.status,
      attempts: r.attempts,
      lastError: r.last_error,
      submittedAt: r.submitted_at?.toISOString() ?? null,
      finishedAt: r.finished_at?.toISOString() ?? null,
      runAt: r.run_at.toISOString(),
    })),
    nextCursor: rows.length > q.limit ? (page.at(-1)?.seq ?? null) : null,
  };
}

/** Submissions per second over the last `windowS` seconds (gaps filled with zeros) for the progress chart. */
export async function rateSeries(
  db: pg.Pool | pg.PoolClient,
  scope: RecordScope,
  batchId: string,
  windowS: number,
  now: Date,
): Promise<RateSeries> {
  const scoped: unknown[] = [batchId];
  const batch = await db.query<{ rate_per_second: number; started_at: Date | null; finished_at: Date | null }>(
    `SELECT rate_per_second, started_at, finished_at FROM replay_batch b WHERE b.id = $1 AND ${batchInScopeSql(scope, paramsOf(scoped))}`,
    scoped,
  );
  const b = batch.rows[0];
  if (!b) throw new AppError("not_found", `replay batch ${batchId} not found`);
  if (!b.started_at) return { ratePerSecond: b.rate_per_second, points: [] };
  const end = Math.floor((b.finished_at ?? now).getTime() / 1000);
  const start = Math.max(Math.floor(b.started_at.getTime() / 1000), end - windowS);
  const { rows } = await db.query<{ t: string; count: number }>(
    `SELECT floor(extract(epoch FROM submitted_at))::bigint::text AS t, count(*)::int AS count
     FROM replay_item WHERE batch_id = $1 AND submitted_at >= to_timestamp($2) AND submitted_at < to_timestamp($3 + 1)
     GROUP BY 1 ORDER BY 1`,
    [batchId, start, end],
  );
  const byT = new Map(rows.map((r) => [Number(r.t), r.count]));
  const points = [];
  for (let t = start; t <= end; t++) points.push({ t, count: byT.get(t) ?? 0 });
  return { ratePerSecond: b.rate_per_second, points };
}
