"use client";

import { openedUnder, rememberSelection, selectionUnder } from "../list-position";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ExportMenu } from "@/components/forensics/export-menu";
import { ViewsMenu } from "@/components/views/views-menu";
import { Button, Kbd } from "@/components/ui/button";
import { filterFromParams, filterKey, filterToParams } from "@/lib/dead-letters/filter-url";
import { recordHref } from "@/lib/dead-letters/query/record-return";
import type { ListFilter } from "@/lib/dead-letters/filters";
import type { DeadLetterSummary, ListPage } from "@/lib/dead-letters/contract/list";
import type { Facets } from "@/lib/dead-letters/contract/facets";
import { KeyboardHelp, LIST_KEYS } from "../keyboard-help";
import { useArrivals, useDeadLetterList, useFacets } from "../use-dead-letter-queries";
import { useHotkeys } from "../use-hotkeys";
import { useHydrated } from "../use-hydrated";
import { BulkBar, selectionSize, type Selection } from "./bulk-bar";
import { BulkJobProgress } from "./bulk-job-progress";
import { ColumnChooser } from "./column-chooser";
import { countLine } from "./count-text";
import { FacetPanel } from "./facet-panel";
import { FilterBar } from "./filter-bar";
import { ResultsTable } from "./results-table";
import { usePreloadDetail } from "./use-preload-detail";
import { useListColumns } from "./use-list-columns";
import { useRowDecisions } from "./use-row-decisions";

// The triage list: filters in the URL (shareable; replaced in place, so filtering costs no server render),
// facet counts, the virtualized table and the map of matching spatial records. MapLibre loads after the page
// is interactive, only when the map is shown. The same list is a failure group's records on the group's page:
// there the page fixes the source and reason, and the URL's filters narrow within them.

const ClusterMap = dynamic(() => import("./cluster-map").then((m) => m.ClusterMap), {
  ssr: false,
  loading: () => (
    <div className="h-full animate-pulse rounded border border-slate-200 dark:border-slate-700 bg-slate-100 dark:bg-slate-800" />
  ),
});

const NO_SELECTION: Selection = { mode: "ids", ids: new Set() };

/** Where the list is shown and what that page fixes. */
export interface ListScope {
  /** the page's path: the list rewrites its query string only while it is the page */
  path: string;
  /** filters the page sets and the URL cannot change (a failure group's source and reason) */
  fixed: ListFilter;
  title: string;
  /** the replay form's link: the approved records under the list's filter */
  replayLabel: string;
  /** the page's own reading of what the list holds (a group's counts): when it changes, the list reads its rows again */
  revision?: string;
}

/** This list's own address (a failure group's page, chosen columns): where a record opened from it returns. */
const listUrl = () => window.location.pathname + window.location.search;

const WHOLE_LIST: ListScope = { path: "/dead-letters", fixed: {}, title: "Dead letters", replayLabel: "Replay approved…" };

// Column layout. From 1600 px: facets | table | map. Narrower, the map moves under the facets in a wider left
// column, so it is still shown at once and the table keeps its width: every column (~56 rem, more than fits
// beside the map below 1600 px) and a failure reason long enough to tell reasons apart.
// On a short screen (1280×720) the map under the facets is lower, and the facet column scrolls with folding
// groups, so more than the first groups are in view.
// Below 1024 px (NARROW) one column: facets, table, map stacked, each of its own height, and the page scrolls
// down to them: beside the facets a phone would leave the table no room.
const GRID_WITH_MAP =
  "grid-cols-[16rem_minmax(0,1fr)] grid-rows-[minmax(0,1fr)_15rem] lg:max-[1599px]:[@media(max-height:800px)]:grid-rows-[minmax(0,1fr)_9rem] min-[1600px]:grid-cols-[12rem_minmax(0,1fr)_20rem] min-[1600px]:grid-rows-1";
const GRID_WITHOUT_MAP = "grid-cols-[12rem_minmax(0,1fr)] grid-rows-1";
const NARROW = {
  section: "max-lg:h-auto",
  grid: "max-lg:grid-cols-1 max-lg:grid-rows-none",
  facets: "max-lg:col-start-auto max-lg:row-start-auto max-lg:max-h-64",
  table: "max-lg:col-start-auto max-lg:row-start-auto max-lg:row-span-1 max-lg:h-[75vh]",
  map: "max-lg:col-start-auto max-lg:row-start-auto max-lg:h-64",
};

export function TriageList({
  initial,
  canTriage,
  canUnmask = false,
  canReplay = false,
  scope = WHOLE_LIST,
}: {
  /** the server's first page and facets for the URL's filter (`key`), read at `renderedAt` */
  initial: { key: string; page: ListPage; facets: Facets; renderedAt: number };
  canTriage: boolean;
  canUnmask?: boolean;
  canReplay?: boolean;
  scope?: ListScope;
}) {
  const router = useRouter();
  const params = useSearchParams();
  const fixedKey = filterKey(scope.fixed);
  const embedded = fixedKey !== "";
  const { filter, error, refusedSearch } = useMemo(() => {
    const url = filterFromParams(params);
    // A refused search is shown by the search box, which keeps its text; the banner names the rest.
    return {
      filter: { ...url.filter, ...filterFromParams(new URLSearchParams(fixedKey)).filter },
      error: url.otherError,
      refusedSearch: url.refusedSearch,
    };
  }, [params, fixedKey]);
  const key = filterKey(filter);
  const facets = useFacets(filter, key === initial.key ? initial.facets : undefined, initial.renderedAt);
  // The filter whose rows and count are on screen. A new filter's rows and counts are two requests (the counts
  // are the slower): the table and the count switch together once both are in, so the count never
  // describes other rows than the table's (nor says "0 loaded" while the rows load).
  const list = useDeadLetterList(filter, key === initial.key ? initial.page : undefined, initial.renderedAt);
  const [shown, setShown] = useState({ key, filter });
  const settled = (facets.data !== undefined && !facets.isPlaceholderData) || facets.isError;
  const listed = (list.data !== undefined && !list.isPlaceholderData) || list.isError;
  if (shown.key !== key && settled && listed) setShown({ key, filter });
  const shownFacets = useFacets(shown.filter, shown.key === initial.key ? initial.facets : undefined, initial.renderedAt);
  // The shown filter's pages, as the table has them (one cache entry): counted in the same render as the rows.
  const shownList = useDeadLetterList(shown.filter, shown.key === initial.key ? initial.page : undefined, initial.renderedAt);
  const loaded = useMemo(
    () => ({
      count: shownList.data?.pages.reduce((n, p) => n + p.items.length, 0) ?? 0,
      complete: shownList.data !== undefined && !shownList.hasNextPage,
    }),
    [shownList.data, shownList.hasNextPage],
  );
  const updating = shown.key !== key;
  const arrivals = useArrivals(shown.filter);
  // Read again when the page saw the records change: the list's own poll asks only about new arrivals (and shows
  // them on request), so a record arriving or decided elsewhere left a group's list behind its header until a reload.
  const seenRevision = useRef(scope.revision);
  const resetArrivals = arrivals.reset;
  useEffect(() => {
    if (scope.revision === seenRevision.current) return;
    seenRevision.current = scope.revision;
    void resetArrivals();
  }, [scope.revision, resetArrivals]);
  const [showingNew, setShowingNew] = useState(false);
  const [selection, setSelection] = useState<Selection>(NO_SELECTION);
  const [focused, setFocused] = useState(-1);
  const firstVisible = useRef(0);
  const [help, setHelp] = useState(false);
  const [job, setJob] = useState<string | null>(null);
  const endJob = useCallback(() => setJob(null), []);
  const [mapWanted, setMapWanted] = useState(true);
  // Below 1024 px the facets fold behind a button: above the table they pushed its first row below the screen.
  const [facetsOpen, setFacetsOpen] = useState(false);
  // Taps have no geometry: with only AFC records listed the map could only say "0 spatial in view".
  const afcOnly = filter.kind?.length === 1 && filter.kind[0] === "afc" && filter.bbox === undefined;
  const showMap = mapWanted && !afcOnly;
  const rows = useRef<{ rows: DeadLetterSummary[]; complete: boolean }>({ rows: [], complete: false });
  const search = useRef<HTMLInputElement>(null);
  const hydrated = useHydrated();
  usePreloadDetail();

  // Set when a row is being opened: until the record's page replaces the list, a late filter change (the search
  // box's 400 ms timer, a map move settling) must not rewrite the URL — its replaceState cancelled the navigation
  // to the record, and the click was lost.
  const leaving = useRef(false);
  const path = scope.path;
  /** The filter (less what the page fixes) and the columns (null: this browser's) into the URL; false: not now. */
  const writeUrl = useCallback(
    (next: ListFilter, cols: string | null): boolean => {
      // Only while the list is the page: a late callback must not rewrite another page's URL.
      if (leaving.current || window.location.pathname !== path) return false;
      const fixed = new URLSearchParams(fixedKey);
      const own = Object.fromEntries(Object.entries(next).filter(([k]) => !fixed.has(k))) as ListFilter;
      const p = filterToParams(own);
      if (cols !== null) p.set("cols", cols);
      const qs = p.toString();
      window.history.replaceState(null, "", qs ? `?${qs}` : window.location.pathname);
      return true;
    },
    [path, fixedKey],
  );
  const setFilter = useCallback(
    (next: ListFilter) => {
      if (!writeUrl(next, new URLSearchParams(window.location.search).get("cols"))) return;
      setSelection(NO_SELECTION);
      setFocused(-1);
    },
    [writeUrl],
  );
  const columns = useListColumns(
    params.get("cols"),
    useCallback((cols) => void writeUrl(filter, cols === null ? null : cols.join(",")), [writeUrl, filter]),
  );
  const applyView = useCallback(
    (next: ListFilter, cols: string[]) => {
      if (!writeUrl(next, cols.length > 0 ? cols.join(",") : null)) return;
      setSelection(NO_SELECTION);
      setFocused(-1);
    },
    [writeUrl],
  );

  const open = useCallback(
    (row: DeadLetterSummary) => {
      leaving.current = true;
      // Held for the navigation, not for ever: should this list be shown again without remounting, it filters again.
      setTimeout(() => {
        leaving.current = false;
      }, 3000);
      router.push(recordHref(row.id, filter, listUrl()));
    },
    [router, filter],
  );

  const selectionMeta = useMemo(
    () => ({
      isSelected: (id: string) => selection.mode === "filter" || selection.ids.has(id),
      toggle: (id: string) =>
        setSelection((s) => {
          const ids = new Set(s.mode === "ids" ? s.ids : []);
          if (ids.has(id)) ids.delete(id);
          else ids.add(id);
          return { mode: "ids", ids };
        }),
    }),
    [selection],
  );

  // After a decision from the list the highlight moves to the row below; when the refreshed list no longer has
  // the decided row (a status filter), the highlight follows that row to its new index.
  // Coming back to the list (Escape, Back, "← Dead letters") the row last opened under this filter is highlighted
  // again and scrolled to, so `j` goes on from there rather than from the top.
  const followRow = useRef<string | null>(null);
  const restore = useRef<string | null | undefined>(undefined); // undefined: not looked up yet
  const onRows = useCallback(
    (list: DeadLetterSummary[], complete: boolean) => {
      rows.current = { rows: list, complete };
      if (restore.current === undefined && list.length > 0) {
        const id = openedUnder(key);
        restore.current = null; // once, on the first rows: a later page must not pull the highlight away
        const at = id === null ? -1 : list.findIndex((r) => r.id === id);
        if (at >= 0) setFocused(at);
        const kept = selectionUnder(key);
        if (kept?.mode === "ids") setSelection({ mode: "ids", ids: new Set(kept.ids) });
        else if (kept?.mode === "filter") setSelection({ mode: "filter", filter, count: kept.count, exact: kept.exact });
      }
      if (followRow.current !== null) {
        const at = list.findIndex((r) => r.id === followRow.current);
        if (at >= 0) setFocused(at);
        followRow.current = null;
      }
    },
    [key, filter],
  );
  // Kept for this tab once the kept one was read (the first rows), so the empty selection of a fresh mount does
  // not overwrite it before then.
  useEffect(() => {
    if (restore.current === undefined) return;
    rememberSelection(key, selection.mode === "ids" ? { mode: "ids", ids: [...selection.ids] } : selection);
  }, [key, selection]);

  const decisions = useRowDecisions({
    canTriage,
    onDecided: (row) => {
      const list = rows.current.rows;
      const at = list.findIndex((r) => r.id === row.id);
      const below = list[at + 1];
      if (at < 0 || !below) return;
      followRow.current = below.id;
      setFocused(at + 1);
    },
  });

  useHotkeys({
    j: () => {
      followRow.current = null;
      // Nothing highlighted yet: start at the first row in view (after scrolling with the mouse, not the top).
      setFocused((i) =>
        i < 0 ? Math.min(firstVisible.current, rows.current.rows.length - 1) : Math.min(i + 1, rows.current.rows.length - 1),
      );
    },
    k: () => {
      followRow.current = null;
      setFocused((i) => Math.max(i - 1, 0));
    },
    Enter: () => {
      const r = rows.current.rows[focused];
      if (r) open(r);
    },
    o: () => {
      const r = rows.current.rows[focused];
      if (r) open(r);
    },
    x: () => {
      const r = rows.current.rows[focused];
      if (r && canTriage) selectionMeta.toggle(r.id);
    },
    a: () => decisions.act(rows.current.rows[focused], "approve"),
    q: () => decisions.act(rows.current.rows[focused], "quarantine"),
    "/": () => search.current?.focus(),
    "?": () => setHelp(true),
  });

  const total = shownFacets.data?.total;
  const activeFacets = (["kind", "status", "class", "source", "reason"] as const).filter((k) => {
    const v = filter[k];
    return Array.isArray(v) ? v.length > 0 : v !== undefined && !(k in scope.fixed);
  }).length;
  const approx = shownFacets.data ? !shownFacets.data.exact : false;
  const allLoadedSelected = selection.mode === "ids" && selection.ids.size > 0 && selection.ids.size === loaded.count;

  return (
    <section
      aria-labelledby="dl-heading"
      // On a group's page the list is under the group's panels: a screen's height of its own, scrolled to.
      className={`flex flex-col gap-2 ${embedded ? "h-[calc(100vh-4rem)] min-h-[32rem]" : "h-[calc(100vh-5.5rem)]"} ${NARROW.section}`}
      data-hydrated={hydrated}
    >
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        {embedded ? (
          <h2 id="dl-heading" className="text-base font-semibold">
            {scope.title}
          </h2>
        ) : (
          <h1 id="dl-heading" className="text-lg font-semibold">
            {scope.title}
          </h1>
        )}
        <p className="text-sm text-slate-600 dark:text-slate-300" aria-live="polite">
          {countLine({ total, exact: !approx, loaded: loaded.count, complete: loaded.complete })} · newest observation first
          {updating && <span className="text-slate-500 dark:text-slate-400"> · updating…</span>}
        </p>
        {/* relative: below 640 px its menus open against the toolbar's right edge (max-sm:static on theirs), not a
            button's that wrapped to the left, which put them off the left of the screen. */}
        <span className="relative ml-auto flex flex-wrap items-center gap-2">
          {canReplay && (
            <Link
              href={`/replays/new?${filterToParams({ ...filter, status: ["approved"] })}`}
              title="A replay batch of the approved records under these filters"
              className="rounded px-2 py-1 text-sm font-medium text-slate-700 dark:text-slate-300 hover:bg-slate-100 dark:hover:bg-slate-800"
            >
              {scope.replayLabel}
            </Link>
          )}
          <ColumnChooser shown={columns.shown} fromView={columns.fromView} onChange={columns.change} />
          {/* Views are filters of the whole list: applying one on a group's page would leave the group. */}
          {!embedded && <ViewsMenu filter={filter} columns={columns.shown} onApply={applyView} />}
          <ExportMenu filter={filter} canUnmask={canUnmask} />
          {!afcOnly && (
            <Button size="sm" variant="ghost" onClick={() => setMapWanted((v) => !v)} aria-pressed={showMap}>
              {showMap ? "Hide map" : "Show map"}
            </Button>
          )}
          <Button size="sm" variant="ghost" onClick={() => setHelp(true)} aria-label="Keyboard shortcuts">
            <Kbd>?</Kbd>
          </Button>
        </span>
      </div>
      {error && (
        <p
          role="alert"
          className="rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 px-3 py-1.5 text-sm text-red-800 dark:text-red-200"
        >
          The filter in the URL is invalid ({error}); showing everything.
        </p>
      )}
      <FilterBar filter={filter} onChange={setFilter} searchRef={search} fixed={scope.fixed} refusedSearch={refusedSearch} />
      {canTriage && selectionSize(selection) > 0 && (
        <BulkBar selection={selection} canReplay={canReplay} onClear={() => setSelection(NO_SELECTION)} onJob={setJob} />
      )}
      {job && <BulkJobProgress key={job} jobId={job} onDone={endJob} />}
      {canTriage && allLoadedSelected && !loaded.complete && total !== undefined && (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          All {loaded.count.toLocaleString("en")} loaded rows are selected.{" "}
          <button
            type="button"
            className="font-medium text-sky-700 dark:text-sky-300 underline"
            onClick={() => setSelection({ mode: "filter", filter, count: total, exact: !approx })}
          >
            Select all {approx ? "≈" : ""}
            {total.toLocaleString("en")} matching this filter
          </button>
        </p>
      )}
      <div className={`grid min-h-0 flex-1 gap-3 ${showMap ? GRID_WITH_MAP : GRID_WITHOUT_MAP} ${NARROW.grid}`}>
        <Button
          size="sm"
          className="justify-self-start lg:hidden"
          aria-expanded={facetsOpen}
          aria-controls="list-facets"
          onClick={() => setFacetsOpen((v) => !v)}
        >
          {facetsOpen ? "Hide filters" : "Filters"}
          {activeFacets > 0 && ` (${activeFacets} selected)`}
        </Button>
        <div
          id="list-facets"
          className={`scroll-shadows col-start-1 row-start-1 min-h-0 overflow-y-auto ${NARROW.facets} ${facetsOpen ? "" : "max-lg:hidden"}`}
        >
          <FacetPanel facets={facets.data} filter={filter} onChange={setFilter} loading={facets.isFetching} fixed={scope.fixed} />
        </div>
        <div
          className={`col-start-2 row-start-1 flex min-h-0 flex-col gap-1 ${showMap ? "row-span-2 min-[1600px]:row-span-1" : ""} ${NARROW.table}`}
        >
          {canTriage && (
            <label className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-300">
              <input
                type="checkbox"
                checked={allLoadedSelected || selection.mode === "filter"}
                onChange={(e) =>
                  setSelection(e.target.checked ? { mode: "ids", ids: new Set(rows.current.rows.map((r) => r.id)) } : NO_SELECTION)
                }
              />
              Select all loaded rows
            </label>
          )}
          {arrivals.count > 0 && (
            <p
              role="status"
              className="flex items-center gap-2 rounded border border-sky-200 dark:border-sky-800 bg-sky-50 dark:bg-sky-950/40 px-2 py-1 text-sm text-sky-900 dark:text-sky-100"
            >
              {arrivals.capped ? `${arrivals.count}+` : arrivals.count} new —
              <Button
                size="sm"
                disabled={showingNew}
                onClick={() => {
                  setShowingNew(true);
                  void arrivals.reset().finally(() => setShowingNew(false));
                }}
              >
                {showingNew ? "Loading…" : "show"}
              </Button>
            </p>
          )}
          <div className="min-h-0 flex-1">
            <ResultsTable
              key={shown.key}
              filter={shown.filter}
              initialPage={shown.key === initial.key ? initial.page : undefined}
              renderedAt={initial.renderedAt}
              selection={selectionMeta}
              focused={focused}
              onFocus={setFocused}
              onOpen={open}
              onRows={onRows}
              firstVisible={firstVisible}
              columnIds={columns.shown}
            />
          </div>
        </div>
        {showMap && (
          <div className={`col-start-1 row-start-2 min-h-0 min-[1600px]:col-start-3 min-[1600px]:row-start-1 ${NARROW.map}`}>
            <ClusterMap
              filter={filter}
              follow={filter.bbox !== undefined}
              onFollowChange={(on, view) => setFilter({ ...filter, bbox: on && view ? view : undefined })}
              onView={(view) => setFilter({ ...filter, bbox: view })}
              onOpen={(id) => router.push(recordHref(id, filter, listUrl()))}
            />
          </div>
        )}
      </div>
      <KeyboardHelp
        open={help}
        onClose={() => setHelp(false)}
        keys={canTriage ? LIST_KEYS : LIST_KEYS.filter(([k]) => k !== "a" && k !== "q")}
      />
      {decisions.dialogs}
    </section>
  );
}
