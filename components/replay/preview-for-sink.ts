import type { BatchPreview } from "@/lib/replay/batch/batch-schemas";
import { fmt } from "./format";

// The creation form's preview for the sink the supervisor picked. The server previews once for every sink and counts
// the approved records without an origin (skipped.noOrigin) beside the others: only the origin sink leaves them out,
// so for it they are neither in the count the form creates (expectedCount) nor news for any other sink.

export type SinkType = "ledger" | "http" | "origin" | "postgis";

/** What a batch to this sink would take: its record count and the reasons records are left out, in words. */
export function previewForSink(preview: BatchPreview, sink: SinkType): { count: number; leftOut: string[] } {
  const { notApproved, inActiveBatch, noKey, noOrigin } = preview.skipped;
  const origin = sink === "origin";
  const leftOut = [
    notApproved > 0 ? `${fmt(notApproved)} not approved` : null,
    inActiveBatch > 0 ? `${fmt(inActiveBatch)} already in an active batch` : null,
    noKey > 0 ? `${fmt(noKey)} without an idempotency key` : null,
    origin && noOrigin > 0 ? `${fmt(noOrigin)} not pulled from a broker source (nowhere to go back to)` : null,
  ].filter((s): s is string => s !== null);
  return { count: origin ? Math.max(0, preview.count - noOrigin) : preview.count, leftOut };
}
