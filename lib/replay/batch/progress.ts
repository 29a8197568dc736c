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

/** A batch's submissions as the rate over its whole run needs them: how many items were sent, first and last send. */
export interface SubmissionSpan {
  submitted: number;
  firstAt: Date | null;
  lastAt: Date | null;
}

/**
 * Submissions per second over the whole run, pauses included: what a supervisor compares with the configured rate
 * once the batch has finished and its last-10-s rate is gone. n submissions paced at r per second are n - 1
 * intervals of 1/r apart, so the rate is (n - 1) over the span from the first to the last; n over that span (or
 * over first submission → end, which adds only the last commit) reads high by n/(n - 1). A run whose sends all
 * share one instant (unpaced, a single one) has no span: its n over first submission → end is the best figure.
 * Null before the end or when nothing was sent.
 */
export function averageRate(span: SubmissionSpan, finishedAt: Date | null): number | null {
  if (!finishedAt || !span.firstAt || span.submitted === 0) return null;
  const between = span.lastAt ? (span.lastAt.getTime() - span.firstAt.getTime()) / 1000 : 0;
  if (span.submitted >= 2 && between > 0) return (span.submitted - 1) / between;
  const run = (finishedAt.getTime() - span.firstAt.getTime()) / 1000;
  return run > 0 ? span.submitted / run : null;
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
