import type { BatchPreview } from "@/lib/replay/batch/batch-schemas";
import { SINKS, sinkPlug, type SinkType } from "@/lib/replay/sinks/registry";
import type { AnySinkConfigPlug } from "@/lib/replay/sinks/sink-plug";
import { fmt } from "./format";

// The creation form's preview for the sink the supervisor picked. The server previews once for every sink and counts
// the approved records without an origin (skipped.noOrigin) beside the others: only the origin sink leaves them out,
// so for it they are neither in the count the form creates (expectedCount) nor news for any other sink.

export type { SinkType };

/** The form's sink choices: each registered sink with its name. */
export function sinkChoices(plugs: readonly AnySinkConfigPlug[] = SINKS): { type: string; label: string }[] {
  return plugs.map((p) => ({ type: p.type, label: p.label }));
}

/** What each sink does, shown under the sink choice for the one selected (never another sink's words). */
export const sinkHelp = (sink: SinkType): string => sinkPlug(sink).help;

/**
 * The sink the form starts with: back to origin when it was opened from a broker source's records (the list
 * filtered by `origin=`), where sending them back is what a supervisor came for; the built-in ledger otherwise.
 */
export function defaultSink(selection: { ids: string[] } | { filter: Record<string, string | string[]> }): SinkType {
  return "filter" in selection && typeof selection.filter.origin === "string" && selection.filter.origin !== "" ? ORIGIN_SINK : "ledger";
}

/** The sink that sends records back where they were pulled from. */
const ORIGIN_SINK: SinkType = SINKS.find((p) => p.needsOrigin)?.type ?? "ledger";

/** What a batch to this sink would take: its record count and the reasons records are left out, in words. */
export function previewForSink(preview: BatchPreview, sink: SinkType): { count: number; leftOut: string[] } {
  const { notApproved, inActiveBatch, noKey, noOrigin } = preview.skipped;
  const origin = sinkPlug(sink).needsOrigin;
  const leftOut = [
    notApproved > 0 ? `${fmt(notApproved)} not approved` : null,
    inActiveBatch > 0 ? `${fmt(inActiveBatch)} already in an active batch` : null,
    noKey > 0 ? `${fmt(noKey)} without an idempotency key` : null,
    origin && noOrigin > 0 ? `${fmt(noOrigin)} not pulled from a broker source (nowhere to go back to)` : null,
  ].filter((s): s is string => s !== null);
  return { count: origin ? Math.max(0, preview.count - noOrigin) : preview.count, leftOut };
}
