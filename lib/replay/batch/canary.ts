import type { ItemStatus } from "./batch-schemas";

// A standing replay's canary (lib/replay/batch/standing-batch.ts checkCanary). Pure: the worker reads the statuses
// after each page and writes what this says.

export interface CanaryVerdict {
  state: "watching" | "passed" | "tripped";
  failures: number;
  answered: number;
  reason: string | null;
}

/**
 * A standing replay's canary, from the statuses of its first items submitted since the flow (re)started, in
 * batch order (a duplicate the dedup ledger absorbed was never submitted, so it is not one of them): once `count` of them have an answer, a failure share (retry, failed, poison) above
 * `maxFailureRate` trips it — the flow pauses until a supervisor resumes it — and anything else passes it.
 */
export function canaryVerdict(statuses: readonly ItemStatus[], canary: { count: number; maxFailureRate: number }): CanaryVerdict {
  const first = statuses.slice(0, canary.count);
  const answered = first.filter((s) => s !== "running" && s !== "pending").length;
  const failures = first.filter((s) => s === "retry" || s === "failed" || s === "poison").length;
  if (answered < canary.count) return { state: "watching", failures, answered, reason: null };
  const share = failures / canary.count;
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  if (share <= canary.maxFailureRate) return { state: "passed", failures, answered, reason: null };
  return {
    state: "tripped",
    failures,
    answered,
    reason: `paused by its canary: ${failures} of the first ${canary.count} items sent failed (${pct(share)}, above ${pct(canary.maxFailureRate)}; an item waiting for its retry counts as failed); a supervisor resumes it`,
  };
}
