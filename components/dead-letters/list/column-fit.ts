// Which of the list's columns fit the table's width. The full row needs ~56 rem; in a narrower table (an 800 px
// window, a split screen) the least useful columns give way, in this order, instead of the table scrolling
// sideways with Class and Status out of sight. Everything hidden here is on the record's page.

/** Columns that may be hidden, the first to go first. */
export const HIDE_ORDER = ["replayCount", "source", "observedAt", "status"] as const;

/** The smallest width of a CSS grid track given as "<n>rem" or "minmax(<n>rem, …)", in rem. */
export function minRem(track: string): number {
  const m = /^(?:minmax\()?\s*([\d.]+)rem/.exec(track);
  return m ? Number(m[1]) : 0;
}

/** The ids of the columns to hide so the rest fit in `widthPx` (null: not measured yet → hide nothing). */
export function hiddenColumns(columns: { id: string; width: string }[], widthPx: number | null, remPx: number): Set<string> {
  const hidden = new Set<string>();
  if (widthPx === null) return hidden;
  let need = columns.reduce((sum, c) => sum + minRem(c.width) * remPx, 0);
  for (const id of HIDE_ORDER) {
    if (need <= widthPx) break;
    const column = columns.find((c) => c.id === id);
    if (!column) continue;
    hidden.add(id);
    need -= minRem(column.width) * remPx;
  }
  return hidden;
}
