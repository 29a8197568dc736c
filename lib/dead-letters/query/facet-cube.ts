import type { ListFilter } from "../filters";
import type { FacetBucket, Facets } from "../contract/facets";
import { dayOfText, endOfDay, startOfDay } from "../../time/instant";

// Facet counts from a "cube": counts per (kind, status, class, source, reason group) for the records matching
// the filter's non-facet parts (time, search, viewport, broker source). Each facet is counted with every other
// facet's selection applied but not its own (disjunctive faceting), so with status=pending selected the status
// facet still shows how many are approved or quarantined. Pure: the SQL that fills the cube is in facets.ts.

export interface CubeCell {
  kind: string;
  status: string;
  failure_class: string;
  source: string;
  reason_group: string;
  n: number;
}

export const FACET_DIMS = ["kind", "status", "class", "source", "reason"] as const;
export type FacetDim = (typeof FACET_DIMS)[number];

const COLUMN: Record<FacetDim, keyof Omit<CubeCell, "n">> = {
  kind: "kind",
  status: "status",
  class: "failure_class",
  source: "source",
  reason: "reason_group",
};

export const REASON_FACET_LIMIT = 50;

/** The filter's selection per facet dimension, as sets (undefined: no selection). */
function selections(filter: ListFilter): Record<FacetDim, Set<string> | undefined> {
  return {
    kind: filter.kind ? new Set(filter.kind) : undefined,
    status: filter.status ? new Set(filter.status) : undefined,
    class: filter.class ? new Set(filter.class) : undefined,
    source: filter.source ? new Set(filter.source) : undefined,
    reason: filter.reason ? new Set([filter.reason]) : undefined,
  };
}

/** The filter without its facet dimensions: what the cube's SQL must apply. */
export function nonFacetFilter(filter: ListFilter): ListFilter {
  const { kind: _k, status: _s, class: _c, source: _so, reason: _r, ...rest } = filter;
  return rest;
}

/**
 * Whether the rollup (counts per facet columns and UTC day) can count what the non-facet part of a filter selects:
 * only a time range. Anything else (a search, a viewport, a broker source) needs the records themselves, so a
 * filter added later is counted from the rows until someone shows the rollup knows it.
 */
export function rollupCanCount(rest: ListFilter): boolean {
  return Object.entries(rest).every(([key, value]) => value === undefined || key === "from" || key === "to");
}

function sorted(counts: Map<string, number>, limit = Infinity, keep?: Set<string>): FacetBucket[] {
  const all = [...counts.entries()].map(([value, count]) => ({ value, count: Math.round(count) })).filter((b) => b.count > 0);
  all.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  const top = all.slice(0, limit);
  // A selected value stays visible (with its count) even when it is not among the largest.
  for (const value of keep ?? []) {
    if (!top.some((b) => b.value === value)) top.push({ value, count: counts.get(value) ?? 0 });
  }
  return top;
}

export function facetsFromCube(cells: readonly CubeCell[], filter: ListFilter, exact: boolean, scale = 1): Facets {
  const sel = selections(filter);
  const matches = (cell: CubeCell, except: FacetDim | null) =>
    FACET_DIMS.every((dim) => dim === except || !sel[dim] || sel[dim].has(cell[COLUMN[dim]]));
  const counts = Object.fromEntries(FACET_DIMS.map((d) => [d, new Map<string, number>()])) as Record<FacetDim, Map<string, number>>;
  let total = 0;
  for (const cell of cells) {
    // Estimated cells are fractional (scaled samples, partial days): round the sums, not each cell.
    const n = cell.n * scale;
    if (n <= 0) continue;
    if (matches(cell, null)) total += n;
    for (const dim of FACET_DIMS) {
      if (!matches(cell, dim)) continue;
      const value = cell[COLUMN[dim]];
      counts[dim].set(value, (counts[dim].get(value) ?? 0) + n);
    }
  }
  return {
    total: Math.round(total),
    exact,
    kind: sorted(counts.kind, Infinity, sel.kind),
    status: sorted(counts.status, Infinity, sel.status),
    class: sorted(counts.class, Infinity, sel.class),
    source: sorted(counts.source, Infinity, sel.source),
    reason: sorted(counts.reason, REASON_FACET_LIMIT, sel.reason),
  };
}

export interface DaySplit {
  /** first and last whole UTC day inside [from, to] (YYYY-MM-DD), null when that side is open */
  firstDay: string | null;
  lastDay: string | null;
  /** false when [from, to] contains no whole day */
  anyDay: boolean;
  /** partial days at the ends, to be counted from dead_letter itself (UTC texts to the microsecond) */
  edges: { from: string; to: string }[];
}

const DAY = 86_400_000;
const shiftDay = (day: string, by: number) => new Date(Date.parse(`${day}T00:00:00Z`) + by * DAY).toISOString().slice(0, 10);

/**
 * Splits an inclusive [from, to] — UTC texts to the microsecond (lib/time/instant.ts), as filters carry them —
 * into whole UTC days and partial edges. A day is whole when the range holds its first and last microsecond.
 */
export function splitByDay(from: string | undefined, to: string | undefined): DaySplit {
  if (from && to && from > to) return { firstDay: null, lastDay: null, anyDay: false, edges: [] };
  const fromDay = from === undefined ? null : dayOfText(from);
  const toDay = to === undefined ? null : dayOfText(to);
  const first = fromDay === null ? null : from === startOfDay(fromDay) ? fromDay : shiftDay(fromDay, 1);
  const last = toDay === null ? null : to === endOfDay(toDay) ? toDay : shiftDay(toDay, -1);
  if (first !== null && last !== null && first > last) {
    return { firstDay: null, lastDay: null, anyDay: false, edges: from && to ? [{ from, to }] : [] };
  }
  const edges: { from: string; to: string }[] = [];
  if (from && fromDay !== null && first !== fromDay) edges.push({ from, to: endOfDay(fromDay) });
  if (to && toDay !== null && last !== toDay) edges.push({ from: startOfDay(toDay), to });
  return { firstDay: first, lastDay: last, anyDay: true, edges };
}
