"use client";

import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { boundLabel, dayOf, dayRange, searchError, type RefusedSearch } from "@/lib/dead-letters/filter-url";
import type { ListFilter } from "@/lib/dead-letters/filters";
import { SEARCH_EXAMPLES, SEARCH_PLACEHOLDER } from "@/lib/dead-letters/search-examples";
import { NoteFilter } from "./note-filter";

/**
 * A range picked backwards moves the other end along (a day): from after to would be refused by the API, and a
 * URL the list cannot read shows everything.
 */
function orderedRange(filter: ListFilter, moved: "from" | "to"): ListFilter {
  const { from, to } = filter;
  if (!from || !to || from <= to) return filter;
  return moved === "from" ? { ...filter, to: dayRange(null, dayOf(from)).to } : { ...filter, from: dayRange(dayOf(to), null).from };
}

// Search (a key or its first 6+ characters in any case, event id, device id, message id, feature id, payload values), the observation date range
// in whole UTC days, and the active filters as removable chips.

/** The chips of what the reader chose: not of the filters the page fixes (a failure group's source and reason). */
function chips(filter: ListFilter, fixed: ListFilter): { label: string; title: string; without: ListFilter }[] {
  const out: { label: string; title: string; without: ListFilter }[] = [];
  const add = (label: string, patch: Partial<ListFilter>, title = label) => out.push({ label, title, without: { ...filter, ...patch } });
  for (const k of filter.kind ?? []) add(`kind: ${k}`, { kind: filter.kind?.filter((v) => v !== k) });
  for (const s of filter.status ?? []) add(`status: ${s}`, { status: filter.status?.filter((v) => v !== s) });
  for (const c of filter.class ?? []) add(`class: ${c}`, { class: filter.class?.filter((v) => v !== c) });
  if (!fixed.source) for (const s of filter.source ?? []) add(`source: ${s}`, { source: filter.source?.filter((v) => v !== s) });
  // The broker source a record was pulled from, not the `source` its producer named (the source facet).
  if (filter.origin) add(`pulled from: ${filter.origin}`, { origin: undefined }, `Pulled from the broker source ${filter.origin}`);
  if (filter.reason && !fixed.reason) add(`reason: ${filter.reason}`, { reason: undefined });
  if (filter.q) add(`search: ${filter.q}`, { q: undefined });
  if (filter.from) add(`observed from: ${boundLabel(filter.from, "from")}`, { from: undefined }, `Observed at or after ${filter.from}`);
  if (filter.to) add(`observed to: ${boundLabel(filter.to, "to")}`, { to: undefined }, `Observed at or before ${filter.to}`);
  if (filter.note) add(`note: ${filter.note}`, { note: undefined }, "Records with a note containing this text");
  if (filter.bbox) add("within the map view", { bbox: undefined });
  return out.map((c) => ({
    ...c,
    without: Object.fromEntries(
      Object.entries(c.without).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
    ) as ListFilter,
  }));
}

export function FilterBar({
  filter,
  onChange,
  searchRef,
  fixed = {},
  refusedSearch = null,
}: {
  filter: ListFilter;
  onChange: (f: ListFilter) => void;
  searchRef: React.RefObject<HTMLInputElement | null>;
  /** filters the page sets: no chip to remove them, and "Clear all" keeps them */
  fixed?: ListFilter;
  /** a search the URL held that the list could not read: the box shows it with why */
  refusedSearch?: RefusedSearch | null;
}) {
  const [q, setQ] = useState(filter.q ?? refusedSearch?.text ?? "");
  // Why the text in the box is not searched. The text stays (to be corrected) and the list keeps the search it
  // had, which its chip names; nothing unreadable goes into the URL.
  const [qError, setQError] = useState<string | null>(filter.q === undefined ? (refusedSearch?.message ?? null) : null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const latest = useRef({ filter, onChange });
  useEffect(() => {
    latest.current = { filter, onChange };
  });
  // A search still waiting when the list goes away (a row opened within 400 ms of typing) is dropped: it fired
  // on the record's page and wrote a search the analyst never applied into that page's URL.
  useEffect(() => () => clearTimeout(timer.current), []);
  // The URL's q changed from elsewhere (a chip removed, back/forward): show it (React's "adjust state on prop change").
  const [shownQ, setShownQ] = useState(filter.q);
  if (shownQ !== filter.q) {
    setShownQ(filter.q);
    setQ(filter.q ?? "");
    setQError(null);
  }
  const commit = (value: string) => {
    clearTimeout(timer.current);
    const trimmed = value.trim();
    const refused = searchError(trimmed);
    setQError(refused);
    if (refused) return;
    if ((latest.current.filter.q ?? "") !== trimmed) latest.current.onChange({ ...latest.current.filter, q: trimmed || undefined });
  };
  const active = chips(filter, fixed);
  return (
    <div className="space-y-2">
      <form
        className="flex flex-wrap items-end gap-2"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          commit(q);
        }}
      >
        <div className="min-w-64 flex-1">
          <label htmlFor="dl-search" className="block text-xs font-medium text-slate-600 dark:text-slate-300">
            Search key or its first characters (6+, any case), event id, device id, feature id, or payload values
          </label>
          <input
            id="dl-search"
            ref={searchRef}
            type="search"
            value={q}
            placeholder={SEARCH_PLACEHOLDER}
            aria-describedby={qError ? "dl-search-error dl-search-help" : "dl-search-help"}
            aria-invalid={qError ? true : undefined}
            onChange={(e) => {
              setQ(e.target.value);
              setQError(null);
              clearTimeout(timer.current);
              const v = e.target.value;
              timer.current = setTimeout(() => commit(v), 400);
            }}
            onKeyDown={(e) => {
              if (e.key === "Escape") e.currentTarget.blur();
            }}
            className="block w-full rounded border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm"
          />
          {qError && (
            <p id="dl-search-error" role="alert" className="mt-1 text-xs text-red-700 dark:text-red-300">
              Not searched: {qError}.
            </p>
          )}
          <p id="dl-search-help" className="mt-1 text-xs text-slate-500 dark:text-slate-400">
            In the payload: words (all of them, any order), <code>key:value</code> (a key at any depth) or <code>path = value</code> (
            <code>{SEARCH_EXAMPLES.condition}</code>, <code>fare_amount_cents = 275</code>). Card data is not searchable.
          </p>
        </div>
        <NoteFilter key={filter.note ?? ""} value={filter.note} onApply={(note) => onChange({ ...filter, note })} />
        <div>
          <label htmlFor="dl-from" className="block text-xs font-medium text-slate-600 dark:text-slate-300">
            Observed from (UTC)
          </label>
          <input
            id="dl-from"
            type="date"
            value={dayOf(filter.from)}
            onChange={(e) => onChange(orderedRange({ ...filter, from: dayRange(e.target.value, null).from }, "from"))}
            className="rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm"
          />
        </div>
        <div>
          <label htmlFor="dl-to" className="block text-xs font-medium text-slate-600 dark:text-slate-300">
            to
          </label>
          <input
            id="dl-to"
            type="date"
            value={dayOf(filter.to)}
            onChange={(e) => onChange(orderedRange({ ...filter, to: dayRange(null, e.target.value).to }, "to"))}
            className="rounded border border-slate-300 dark:border-slate-600 px-2 py-1 text-sm"
          />
        </div>
      </form>
      <div role="group" className="flex min-h-7 flex-wrap items-center gap-1.5" aria-label="Active filters">
        {active.map((c) => (
          <button
            key={c.label}
            type="button"
            onClick={() => onChange(c.without)}
            aria-label={`Remove filter ${c.label}`}
            title={c.title}
            className="max-w-80 truncate rounded-full bg-slate-200 dark:bg-slate-700 px-2 py-0.5 text-xs text-slate-800 dark:text-slate-200 hover:bg-slate-300 dark:hover:bg-slate-600"
          >
            {c.label} ✕
          </button>
        ))}
        {active.length > 0 && (
          <Button size="sm" variant="ghost" onClick={() => onChange(fixed)}>
            Clear all
          </Button>
        )}
      </div>
    </div>
  );
}
