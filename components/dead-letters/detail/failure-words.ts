import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";

// How the record page words its failure history: where each failure came from, a new failure after a replay, and
// another sender's re-send that changed nothing. Pure and client-safe.

type Failure = DeadLetterDetail["failures"][number];

const ORIGIN: Record<string, string> = {
  ingest: "sent over HTTP",
  capture: "captured at the tap gate",
  pull: "pulled from the broker",
  replay: "replay: dropped or gave up",
};

/** A failure that came after a replay had sent the record: its key arrived again (not a failed replay item). */
export const isFailureAfterReplay = (f: Failure): boolean => f.origin !== "replay" && f.batchId !== null && f.alsoSentBy === null;

/** The "How" of one failure in the history. */
export function howItFailed(f: Failure): string {
  const how = ORIGIN[f.origin] ?? f.origin;
  if (f.alsoSentBy !== null) return `the same key was also sent by ${f.alsoSentBy} (${how}); the record was left as it is`;
  if (isFailureAfterReplay(f)) return `failed again after replay in batch #${f.batchId} (${how})`;
  return f.batchId ? `${how} (batch ${f.batchId})` : how;
}

/**
 * The record's latest failure when it is a failure after replay and the record has not been replayed since: the
 * page says so at the top ("Failed again after replay in batch #N"). Null otherwise.
 */
export function failedAgainAfterReplay(record: Pick<DeadLetterDetail, "status" | "failures">): Failure | null {
  if (record.status === "replayed") return null;
  const counted = record.failures.filter((f) => f.alsoSentBy === null);
  const last = counted.reduce<Failure | null>((a, f) => (a === null || f.attempt > a.attempt ? f : a), null);
  return last !== null && isFailureAfterReplay(last) ? last : null;
}
