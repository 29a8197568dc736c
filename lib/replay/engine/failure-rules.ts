import { applyRepeatFailure, type RepeatState } from "../../dead-letters/store/repeat-failure";
import type { ItemStatus } from "../batch/batch-schemas";

// The engine's decisions that need no database: when an item is poison, when a batch pauses itself, and what
// an item's outcome does to its dead-letter record. The SQL modules call these and write the results.

/**
 * An item lost with a dead worker this often is a suspect: it is processed alone from then on, so losing it
 * again says something about the item, not about whatever else was in the page when a worker was killed.
 */
export const SUSPECT_LEASE_LOSSES = 2;
/** A suspect lost this often (three times alone) is treated as what killed the workers. */
export const MAX_LEASE_LOSSES = 5;
/** The self-pause looks at this many most recently submitted items… */
export const FAILURE_WINDOW = 100;
/** …and only once at least this many have an answer, so two early failures cannot pause a batch. */
export const MIN_FAILURE_SAMPLE = 20;

/** Why an item must not be submitted again, or null. Checked after re-validation, before the rate limiter. */
export function poisonReason(item: { replayCount: number; leaseLosses: number }, maxReplays: number): string | null {
  if (item.leaseLosses >= MAX_LEASE_LOSSES) {
    return `a worker died holding this record ${item.leaseLosses} times: treated as the cause`;
  }
  if (item.replayCount >= maxReplays) return `replayed ${item.replayCount} times (the batch allows ${maxReplays})`;
  return null;
}

export interface FailureVerdict {
  pause: boolean;
  share: number;
  sample: number;
  reason: string | null;
}

/**
 * Whether a batch should pause itself, from the statuses of its most recently submitted items (newest first).
 * A failure is an item whose latest submission failed (retry, failed, poison); items in flight don't count.
 */
export function failureVerdict(statuses: readonly ItemStatus[], threshold: number): FailureVerdict {
  const answered = statuses.filter((s) => s !== "running").slice(0, FAILURE_WINDOW);
  const failures = answered.filter((s) => s === "retry" || s === "failed" || s === "poison").length;
  const sample = answered.length;
  const share = sample === 0 ? 0 : failures / sample;
  const pause = sample >= MIN_FAILURE_SAMPLE && share > threshold;
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  return {
    pause,
    share,
    sample,
    reason: pause
      ? `paused automatically: ${failures} of the last ${sample} submitted items failed (${pct(share)}, threshold ${pct(threshold)})`
      : null,
  };
}

export type RecordOutcome = "applied" | "deduped" | "dropped" | "poison" | "failed";

export type RecordState = RepeatState;

export interface RecordChange {
  status: RecordState["status"];
  replayCount: number;
  failureCount: number;
  failureClass: RecordState["failureClass"];
  classReason: string | null;
  /** the record's new current reason; null leaves it as it is */
  reason: string | null;
  /** a failure_attempt row (origin 'replay') to append, or null */
  attempt: { attempt: number; reason: string } | null;
}

/**
 * What an item outcome does to its record. `submitted`: the record reached the sink this time (counts as a
 * replay). Settled records (applied, deduped) leave triage as `replayed`; records the replay could not
 * deliver (dropped: invalid now; failed: refused by the sink) go back to triage with the reason, or to
 * quarantine when that failure makes them poison; poison goes to quarantine.
 */
export function recordEffect(
  s: RecordState,
  outcome: RecordOutcome,
  detail: { reason: string | null; submitted: boolean; now: Date },
): RecordChange {
  const replayCount = s.replayCount + (detail.submitted ? 1 : 0);
  if (outcome === "applied" || outcome === "deduped") {
    return {
      status: s.status === "approved" ? "replayed" : s.status,
      replayCount,
      failureCount: s.failureCount,
      failureClass: s.failureClass,
      classReason: s.classReason,
      reason: null,
      attempt: null,
    };
  }
  const reason = detail.reason ?? outcome;
  if (outcome === "poison") {
    const failureCount = s.failureCount + 1;
    return {
      status: s.status === "approved" || s.status === "pending" ? "quarantined" : s.status,
      replayCount,
      failureCount,
      failureClass: "poison",
      classReason: reason,
      reason,
      attempt: { attempt: failureCount, reason },
    };
  }
  const next = applyRepeatFailure(s, { reason, at: detail.now, replayCount });
  const backToTriage = next.status === "approved" ? "pending" : next.status;
  return {
    status: backToTriage,
    replayCount: next.replayCount,
    failureCount: next.failureCount,
    failureClass: next.failureClass,
    classReason: next.classReason,
    reason: next.reason,
    attempt: { attempt: next.failureCount, reason },
  };
}
