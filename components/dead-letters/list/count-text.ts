// The list's count line. The matching count comes from the facets query and may be an estimate (≈) on a large
// filter; once every matching row is loaded the loaded count is the exact one, and no estimate is shown.

export interface ListCounts {
  /** the facets' count of matching records; undefined while it loads */
  total: number | undefined;
  /** false when `total` is PostgreSQL's estimate */
  exact: boolean;
  loaded: number;
  /** every matching row is loaded (no next page) */
  complete: boolean;
}

/** How many records match, as shown: exact once all are loaded. Undefined while unknown. */
export function matchingCount(c: ListCounts): { n: number; approx: boolean } | undefined {
  if (c.complete) return { n: c.loaded, approx: false };
  if (c.total === undefined) return undefined;
  return { n: c.total, approx: !c.exact };
}

/** "≈1,200 matching · 100 loaded", "71 matching · 71 loaded", "… · 0 loaded". */
export function countLine(c: ListCounts): string {
  const m = matchingCount(c);
  const matching = m === undefined ? "…" : `${m.approx ? "≈" : ""}${m.n.toLocaleString("en")} matching`;
  return `${matching} · ${c.loaded.toLocaleString("en")} loaded`;
}
