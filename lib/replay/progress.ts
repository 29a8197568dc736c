import type { OutcomeCounts } from "./schemas";

/**
 * "n / total" for a batch's progress, where n counts the items that were dealt with (applied, deduped, dropped,
 * poison, failed) and the cancelled ones are said apart: a batch cancelled before it ran is not "37 / 37" done.
 */
export function progressText(total: number, counts: OutcomeCounts, fmt: (n: number) => string = String): string {
  const processed = counts.applied + counts.deduped + counts.dropped + counts.poison + counts.failed;
  return `${fmt(processed)} / ${fmt(total)}${counts.cancelled > 0 ? ` · ${fmt(counts.cancelled)} cancelled` : ""}`;
}
