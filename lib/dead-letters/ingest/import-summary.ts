// The closing line of an import, the same from `redrive import` and the dashboard's import page. Pure.

import { plural } from "../../vocabulary/plural";

export interface ImportCounts {
  created: number;
  duplicate: number;
  rejected: number;
}

export function importSummary(counts: ImportCounts, seconds: number): string {
  const done = counts.created + counts.duplicate + counts.rejected;
  return (
    `imported ${done} ${plural(done, "record")} in ${seconds.toFixed(1)} s (${Math.round(done / Math.max(seconds, 1e-3))}/s): ` +
    `${counts.created} created, ${counts.duplicate} duplicate, ${counts.rejected} rejected`
  );
}
