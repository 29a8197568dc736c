import type { ItemStatus } from "./batch-schemas";

/**
 * How many times an item was sent to its sink. `attempts` counts only the sends that failed and were to be
 * retried (the retry budget); the send that settled it (applied, deduped by the sink) or that the sink refused for
 * good (failed) is one more. Deduped from the ledger, dropped, poisoned before sending, cancelled: nothing more sent.
 */
export function sendsOf(item: { status: ItemStatus; attempts: number; submittedAt: string | null }): number {
  const lastSend = item.submittedAt !== null && (item.status === "applied" || item.status === "deduped" || item.status === "failed");
  return item.attempts + (lastSend ? 1 : 0);
}
