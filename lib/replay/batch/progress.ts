import type { BatchView, OutcomeCounts } from "./batch-schemas";
import { FINISHED_BATCH_STATUSES } from "./batch-states";

/**
 * "n / total" for a batch's progress, where n counts the items that were dealt with (applied, deduped, dropped,
 * poison, failed) and the cancelled ones are said apart: a batch cancelled before it ran is not "37 / 37" done.
 */
export function progressText(total: number, counts: OutcomeCounts, fmt: (n: number) => string = String): string {
  const processed = counts.applied + counts.deduped + counts.dropped + counts.poison + counts.failed;
  return `${fmt(processed)} / ${fmt(total)}${counts.cancelled > 0 ? ` · ${fmt(counts.cancelled)} cancelled` : ""}`;
}

/**
 * Records dealt with per second over the whole run — from its first submission (read-batches.ts; the start when nothing
 * was submitted) to its end, pauses included: what a supervisor compares with the configured rate once the batch
 * has finished and its last-10-s rate is gone. Null before the end.
 */
export function averageRate(counts: OutcomeCounts, startedAt: Date | null, finishedAt: Date | null): number | null {
  if (!startedAt || !finishedAt) return null;
  const seconds = (finishedAt.getTime() - startedAt.getTime()) / 1000;
  const processed = counts.applied + counts.deduped + counts.dropped + counts.poison + counts.failed;
  return seconds > 0 && processed > 0 ? processed / seconds : null;
}

/** After a batch ended, items still in flight are counted within a page's commit; give up watching after this. */
const SETTLE_AFTER_END_MS = 2 * 60_000;

/**
 * A batch can still change until it has ended AND nothing is pending: a cancel ends the batch at once, but items
 * a worker had in flight are only counted (cancelled, or applied if already sent) when their page commits. Items
 * of a worker that died are counted by another worker's sweeper: with no worker alive, or long after the end,
 * nothing will come, and the page stops asking.
 */
export function isLive(batch: Pick<BatchView, "status" | "counts" | "liveWorkers" | "finishedAt"> | undefined, now = Date.now()): boolean {
  if (!batch || !FINISHED_BATCH_STATUSES.includes(batch.status)) return true;
  const recent = batch.finishedAt === null || now - Date.parse(batch.finishedAt) < SETTLE_AFTER_END_MS;
  return batch.counts.pending > 0 && batch.liveWorkers > 0 && recent;
}
