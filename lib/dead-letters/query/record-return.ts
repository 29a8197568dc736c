import type { ListFilter } from "../filters";
import { filterToParams } from "../filter-url";

// The way back from a record to the list it was opened from. A record's URL carries the list's filter (its
// neighbours for j/k are that list's); a list that is more than its filter — a failure group's page, or columns
// chosen in the URL — also sends its own address as `back`, which Escape and the back link then return to.

/** The app's lists a record may return to: a path of ours, never another origin (`//host`) nor a script URL. */
const LIST_URL = /^\/(?:dead-letters|groups\/[A-Za-z0-9_-]{1,64})(?:\?[^#\s]*)?$/;

export interface ListReturn {
  href: string;
  /** the back link's text */
  label: string;
}

/** Where a record page's Escape and back link go: `back` when it names one of the app's lists, else null. */
export function listReturn(back: string | null): ListReturn | null {
  if (back === null || !LIST_URL.test(back)) return null;
  return { href: back, label: back.startsWith("/groups/") ? "← Failure group" : "← Dead letters" };
}

/** The whole list under `filter`: where a record opened without `back` returns. */
export function filterListHref(filter: ListFilter): string {
  const qs = filterToParams(filter).toString();
  return `/dead-letters${qs ? `?${qs}` : ""}`;
}

/**
 * A record's URL from a list: the list's filter and, when the list's own address (`listUrl`: path and query) is
 * not just that filter's whole list, the way back to it.
 */
export function recordHref(id: string, filter: ListFilter, listUrl: string | null): string {
  const p = filterToParams(filter);
  if (listUrl !== null && listUrl !== filterListHref(filter) && listReturn(listUrl)) p.set("back", listUrl);
  const qs = p.toString();
  return `/dead-letters/${encodeURIComponent(id)}${qs ? `?${qs}` : ""}`;
}
