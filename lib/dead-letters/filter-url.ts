import { searchParamsToObject } from "../net/search-params";
import { dayOfText, endOfDay, startOfDay } from "../time/instant";
import { ListFilterSchema, type ListFilter } from "./filters";

// The list's filter ↔ the URL's query string, so a filtered view is a link someone else can open. The same
// spelling as the API's query (kind=spatial,afc, from=2026-11-05T00:00:00.000Z …), so the page passes its own
// query string straight to /api/dead-letters*. Client-safe and pure.

export const FILTER_KEYS = ["kind", "status", "class", "source", "origin", "reason", "from", "to", "q", "note", "bbox"] as const;

/** A search the list could not read: the text as typed (the box keeps it) and why. */
export interface RefusedSearch {
  text: string;
  message: string;
}

/**
 * The filter in the URL; when the URL was edited into something invalid, the filter without the fields in
 * question (the rest still applies, and a change made next keeps it) with the problem to show. A refused search
 * (`q`) is also given apart, for the search box to keep its text and say why beside it; `otherError` is the
 * problem without it.
 */
export function filterFromParams(params: URLSearchParams): {
  filter: ListFilter;
  error: string | null;
  refusedSearch: RefusedSearch | null;
  otherError: string | null;
} {
  const raw = searchParamsToObject(params);
  const picked = Object.fromEntries(FILTER_KEYS.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));
  const parsed = ListFilterSchema.safeParse(picked);
  if (parsed.success) return { filter: parsed.data, error: null, refusedSearch: null, otherError: null };
  const describe = (issues: typeof parsed.error.issues) => issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") || null;
  const searchIssue = parsed.error.issues.find((i) => i.path[0] === "q");
  const q = picked.q;
  // from > to names `from` alone, but it takes both ends to make it: drop the range as a whole.
  const bad = new Set(
    parsed.error.issues.flatMap((i) => (i.path[0] === "from" || i.path[0] === "to" ? ["from", "to"] : [String(i.path[0])])),
  );
  const rest = ListFilterSchema.safeParse(Object.fromEntries(Object.entries(picked).filter(([k]) => !bad.has(k))));
  return {
    filter: rest.success ? rest.data : {},
    error: describe(parsed.error.issues),
    refusedSearch: searchIssue && typeof q === "string" ? { text: q, message: searchIssue.message } : null,
    otherError: describe(parsed.error.issues.filter((i) => i.path[0] !== "q")),
  };
}

/** Why the list cannot search for `text` (the rule the API applies to `q`), or null when it can. */
export function searchError(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const parsed = ListFilterSchema.shape.q.safeParse(trimmed);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? "cannot be searched");
}

const round = (n: number) => Math.round(n * 1e5) / 1e5;

/** Canonical query string of a filter (stable key order), without the leading "?". */
export function filterToParams(filter: ListFilter): URLSearchParams {
  const p = new URLSearchParams();
  if (filter.kind?.length) p.set("kind", filter.kind.join(","));
  if (filter.status?.length) p.set("status", filter.status.join(","));
  if (filter.class?.length) p.set("class", filter.class.join(","));
  if (filter.source?.length) p.set("source", filter.source.join(","));
  if (filter.origin) p.set("origin", filter.origin);
  if (filter.reason) p.set("reason", filter.reason);
  if (filter.from) p.set("from", filter.from);
  if (filter.to) p.set("to", filter.to);
  if (filter.q) p.set("q", filter.q);
  if (filter.note) p.set("note", filter.note);
  if (filter.bbox) p.set("bbox", filter.bbox.map(round).join(","));
  return p;
}

/** A stable string for query keys and equality. */
export function filterKey(filter: ListFilter): string {
  return filterToParams(filter).toString();
}

type ListKey = "kind" | "status" | "class" | "source";

/** The filter with `value` added to or removed from a multi-value facet. */
export function toggleValue<K extends ListKey>(filter: ListFilter, key: K, value: NonNullable<ListFilter[K]>[number]): ListFilter {
  const current = (filter[key] ?? []) as string[];
  const next = current.includes(value) ? current.filter((v) => v !== value) : [...current, value];
  const out = { ...filter, [key]: next.length ? next : undefined };
  return out as ListFilter;
}

/** Whole UTC days for the date inputs: from the first microsecond of the first day to the last of the last. */
export function dayRange(fromDay: string | null, toDay: string | null): Pick<ListFilter, "from" | "to"> {
  const valid = (d: string | null) => (d && /^\d{4}-\d{2}-\d{2}$/.test(d) ? d : null);
  const f = valid(fromDay),
    t = valid(toDay);
  return { from: f ? startOfDay(f) : undefined, to: t ? endOfDay(t) : undefined };
}

/** The UTC day of a filter's time bound, for a date input. */
export const dayOf = (t: string | undefined): string => (t ? dayOfText(t) : "");

/**
 * A time bound as a chip shows it: the day when the bound is a whole UTC day's edge (what the date inputs make),
 * else the instant to the second (a bound that came in a link or from the API).
 */
export function boundLabel(t: string, side: "from" | "to"): string {
  const day = dayOfText(t);
  if (t === (side === "from" ? startOfDay(day) : endOfDay(day))) return day;
  return `${t.slice(0, 19).replace("T", " ")} UTC`;
}

/** Rows per list request in the UI: a few screens, so scrolling rarely waits; the API allows up to 500. */
export const LIST_PAGE_SIZE = 200;
