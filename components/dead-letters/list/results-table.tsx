"use client";

import { useTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import type { DeadLetterSummary, ListPage } from "@/lib/dead-letters/contract/list";
import type { ListFilter } from "@/lib/dead-letters/filters";
import { useDeadLetterList } from "../use-dead-letter-queries";
import { hiddenColumns } from "./column-fit";
import { readColumns, type ListColumnId } from "@/lib/dead-letters/list-columns";
import { chosenColumns, columnWidths, features, gridTemplate, type RowSelectionMeta } from "./columns";

// The list: TanStack Table for the column model, TanStack Virtual for the rows (only the ~40 visible rows are
// in the DOM, so 100k loaded rows scroll like 100), keyset pages from the server appended as the end nears.
// Rows are real table rows (role row/cell) laid out on a CSS grid so they can be absolutely positioned.

const ROW_HEIGHT = 36;
/**
 * The sticky header row's height (set on it, so it is exact): rows start below it in the scroller, and it covers
 * the top of the view. Without telling the virtualizer, `j` scrolled a row into view behind the table's bottom
 * edge by this much — after ~20 presses only a sliver of the row acted on by a/q/Enter showed.
 */
const HEADER_HEIGHT = 33;
const EMPTY: DeadLetterSummary[] = [];
const estimateSize = () => ROW_HEIGHT;
const getRowId = (r: DeadLetterSummary) => r.id;

const remPx = () => (typeof document === "undefined" ? 16 : parseFloat(getComputedStyle(document.documentElement).fontSize) || 16);

/**
 * The columns that do not fit the element's inner width (without its scrollbar), followed as it is resized. Held
 * as a key, not the width: a resize that hides no other column (most frames of a drag) renders nothing.
 */
function useHiddenColumns(ref: RefObject<HTMLElement | null>, widths: { id: string; width: string }[]): Set<string> {
  const [key, setKey] = useState("");
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setKey([...hiddenColumns(widths, el.clientWidth, remPx())].join(",")));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref, widths]);
  return useMemo(() => new Set(key ? key.split(",") : []), [key]);
}

export interface ResultsTableProps {
  filter: ListFilter;
  initialPage?: ListPage;
  /** when the server read initialPage */
  renderedAt?: number;
  selection: RowSelectionMeta;
  focused: number;
  onFocus: (index: number) => void;
  onOpen: (row: DeadLetterSummary) => void;
  onRows: (rows: DeadLetterSummary[], complete: boolean) => void;
  /** kept up to date with the first row in view, so `j` with nothing highlighted starts there, not at the top */
  firstVisible?: { current: number };
  /** the columns chosen, in order (after the selection checkbox) */
  columnIds: readonly ListColumnId[];
}

export function ResultsTable({
  filter,
  initialPage,
  renderedAt,
  selection,
  focused,
  onFocus,
  onOpen,
  onRows,
  firstVisible,
  columnIds,
}: ResultsTableProps) {
  const list = useDeadLetterList(filter, initialPage, renderedAt);
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? EMPTY, [list.data]);
  const idsKey = columnIds.join(",");
  // Keyed by the ids' text: a new array with the same columns must not rebuild the table's column model.
  const columns = useMemo(() => chosenColumns(readColumns(idsKey.split(","))), [idsKey]);
  const widths = useMemo(() => columnWidths(columns), [columns]);
  const table = useTable({ features, columns, data: rows, getRowId, meta: selection });
  const scroller = useRef<HTMLDivElement>(null);
  const model = table.getRowModel().rows;
  const hidden = useHiddenColumns(scroller, widths);
  const template = useMemo(() => gridTemplate(widths, hidden), [widths, hidden]);
  // Stable across renders: the virtualizer recomputes every row's offset (O(rows)) whenever getItemKey changes,
  // which with an inline function is every scroll frame: too slow to scroll a long list.
  const getItemKey = useCallback((i: number) => rows[i]?.id ?? i, [rows]);
  // The virtualizer hands back functions React Compiler must not memoize; it is the documented usage.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: model.length,
    getScrollElement: () => scroller.current,
    estimateSize,
    getItemKey,
    overscan: 12,
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;
  // Items include the overscan above the view: the first whose bottom is below the scroll offset is in view.
  // (Offsets include the header, scrollMargin: a row is in view once its bottom is below the sticky header.)
  const firstInView = items.find((i) => i.end > (virtualizer.scrollOffset ?? 0) + HEADER_HEIGHT)?.index ?? 0;
  useEffect(() => {
    if (firstVisible) firstVisible.current = firstInView;
  }, [firstVisible, firstInView]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;

  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= rows.length - 60) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, lastIndex, rows.length]);

  useEffect(() => onRows(rows, !hasNextPage), [rows, hasNextPage, onRows]);

  useEffect(() => {
    if (focused >= 0 && focused < model.length) virtualizer.scrollToIndex(focused, { align: "auto" });
  }, [focused, model.length, virtualizer]);

  const header = table.getHeaderGroups()[0];
  return (
    <div
      ref={scroller}
      className="h-full overflow-auto rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900"
      data-testid="results-scroller"
    >
      <table className="grid w-full text-left text-sm" aria-rowcount={list.hasNextPage ? -1 : rows.length + 1} aria-label="Dead letters">
        <thead className="sticky top-0 z-10 grid border-b border-slate-200 dark:border-slate-700 bg-slate-50 dark:bg-slate-800">
          <tr className="grid items-center" style={{ gridTemplateColumns: template, height: HEADER_HEIGHT - 1 }}>
            {header?.headers
              .filter((h) => !hidden.has(h.column.id))
              .map((h) => (
                <th
                  key={h.id}
                  scope="col"
                  className={`truncate px-2 py-2 text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400 ${h.column.columnDef.meta?.align === "right" ? "text-right" : ""}`}
                >
                  {h.isPlaceholder ? null : <table.FlexRender header={h} />}
                </th>
              ))}
          </tr>
        </thead>
        <tbody className="relative grid" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = model[item.index];
            if (!row) return null;
            const isFocused = item.index === focused;
            const isSelected = selection.isSelected(row.id);
            return (
              <tr
                key={row.id}
                aria-rowindex={item.index + 2}
                aria-selected={isSelected}
                data-focused={isFocused || undefined}
                onClick={() => {
                  onFocus(item.index);
                  onOpen(row.original);
                }}
                className={`absolute left-0 grid w-full cursor-pointer items-center border-b border-slate-100 dark:border-slate-800 ${isFocused ? "bg-sky-50 dark:bg-sky-950/40 outline outline-2 -outline-offset-2 outline-sky-400" : isSelected ? "bg-amber-50 dark:bg-amber-950/40" : "hover:bg-slate-50 dark:hover:bg-slate-800"}`}
                style={{ gridTemplateColumns: template, height: ROW_HEIGHT, transform: `translateY(${item.start - HEADER_HEIGHT}px)` }}
              >
                {row
                  .getAllCells()
                  .filter((cell) => !hidden.has(cell.column.id))
                  .map((cell) => (
                    <td key={cell.id} className={`flex min-w-0 px-2 ${cell.column.columnDef.meta?.align === "right" ? "justify-end" : ""}`}>
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      {list.isError && (
        <p role="alert" className="p-4 text-sm text-red-700 dark:text-red-300">
          Could not load the list: {list.error.message}
        </p>
      )}
      {!list.isPending && rows.length === 0 && !list.isError && (
        <p className="p-8 text-center text-sm text-slate-500 dark:text-slate-400">No dead letters match these filters.</p>
      )}
      {list.isPending && <p className="p-8 text-center text-sm text-slate-500 dark:text-slate-400">Loading…</p>}
      {isFetchingNextPage && (
        <p className="sticky bottom-0 bg-white/90 dark:bg-slate-900/90 p-2 text-center text-xs text-slate-500 dark:text-slate-400">
          Loading more…
        </p>
      )}
    </div>
  );
}
