"use client";

import { toggleValue } from "@/lib/dead-letters/filter-url";
import type { ListFilter } from "@/lib/dead-letters/filters";
import type { Facets, FacetBucket } from "@/lib/dead-letters/contract/facets";

// Counts per facet from the server, for the records matching every other selected facet. Clicking a value
// toggles it in the URL's filter; reasons are grouped by pattern (reason_group) with their counts.

const LABEL: Record<string, string> = { afc: "AFC", transient_schema: "transient schema" };
const fmt = (n: number) => n.toLocaleString("en");

// Each group folds (a native <details>): at 1280×720 the facets share the left column with the map, and an
// analyst who only needs the reasons folds Kind and Status away. Folded, a group still says what it filters on.
function Fold({ title, active, children }: { title: string; active: number; children: React.ReactNode }) {
  return (
    <details open className="group/fold">
      <summary className="mb-1 flex cursor-pointer list-none items-center gap-1 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400 hover:text-slate-700 dark:hover:text-slate-300">
        <span aria-hidden className="inline-block transition-transform group-open/fold:rotate-90">
          ▸
        </span>
        {title}
        {active > 0 && (
          <span className="rounded bg-sky-100 dark:bg-sky-900/50 px-1 font-normal normal-case text-sky-900 dark:text-sky-100">
            {active} selected
          </span>
        )}
      </summary>
      {children}
    </details>
  );
}

function Group({
  title,
  buckets,
  selected,
  approx,
  onToggle,
}: {
  title: string;
  buckets: FacetBucket[];
  selected: readonly string[] | undefined;
  approx: boolean;
  onToggle: (value: string) => void;
}) {
  return (
    <Fold title={title} active={selected?.length ?? 0}>
      <fieldset className="space-y-0.5">
        <legend className="sr-only">{title}</legend>
        {buckets.length === 0 && <p className="text-xs text-slate-500 dark:text-slate-400">none</p>}
        {buckets.map((b) => (
          <label
            key={b.value}
            className="flex cursor-pointer items-center gap-2 rounded px-1 py-0.5 text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
          >
            <input type="checkbox" checked={selected?.includes(b.value) ?? false} onChange={() => onToggle(b.value)} />
            <span className="flex-1 truncate" title={LABEL[b.value] ?? b.value}>
              {LABEL[b.value] ?? b.value}
            </span>
            <span className="tabular-nums text-xs text-slate-500 dark:text-slate-400">
              {approx ? "≈" : ""}
              {fmt(b.count)}
            </span>
          </label>
        ))}
      </fieldset>
    </Fold>
  );
}

export function FacetPanel({
  facets,
  filter,
  onChange,
  loading,
  fixed = {},
}: {
  facets: Facets | undefined;
  filter: ListFilter;
  onChange: (filter: ListFilter) => void;
  loading: boolean;
  /** filters the page sets (a failure group's source and reason): their facets are not offered */
  fixed?: ListFilter;
}) {
  if (!facets) return <div className="h-full animate-pulse rounded bg-slate-100 dark:bg-slate-800" aria-label="Loading counts" />;
  const approx = !facets.exact;
  const groups = [
    ["Kind", "kind", facets.kind],
    ["Status", "status", facets.status],
    ["Class", "class", facets.class],
    ["Source", "source", facets.source],
  ] as const;
  const offered = groups.filter(([, key]) => fixed[key] === undefined);
  return (
    <aside aria-label="Filter by facet" className={`space-y-3 pr-1 transition-opacity ${loading ? "opacity-60" : ""}`}>
      {offered.map(([title, key, buckets]) => (
        <Group
          key={key}
          title={title}
          buckets={buckets}
          selected={filter[key]}
          approx={approx}
          onToggle={(v) => onChange(toggleValue(filter, key, v as never))}
        />
      ))}
      {fixed.reason === undefined && (
        <Fold title="Failure reason (grouped)" active={filter.reason ? 1 : 0}>
          <ul aria-label="Failure reason (grouped)" className="space-y-0.5">
            {facets.reason.map((b) => {
              const active = filter.reason === b.value;
              return (
                <li key={b.value}>
                  <button
                    type="button"
                    aria-pressed={active}
                    onClick={() => onChange({ ...filter, reason: active ? undefined : b.value })}
                    className={`w-full rounded px-1 py-0.5 text-left text-xs leading-snug ${active ? "bg-sky-100 dark:bg-sky-900/50 text-sky-900 dark:text-sky-100 ring-1 ring-sky-300 dark:ring-sky-700" : "text-slate-700 dark:text-slate-300 hover:bg-slate-100 dark:hover:bg-slate-800"}`}
                    title={b.value}
                  >
                    <span className="line-clamp-2 wrap-anywhere">{b.value}</span>
                    <span className="tabular-nums text-slate-500 dark:text-slate-400">
                      {" "}
                      × {approx ? "≈" : ""}
                      {fmt(b.count)}
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        </Fold>
      )}
    </aside>
  );
}
