"use client";

import { Button } from "@/components/ui/button";
import { usePopover } from "@/components/ui/use-popover";
import {
  chooserRows,
  DEFAULT_COLUMNS,
  LIST_COLUMN_LABELS,
  moveColumn,
  sameColumns,
  toggleColumn,
  type ListColumnId,
} from "@/lib/dead-letters/list-columns";

// The list header's "Columns" menu: a checkbox per column (shown or not) and buttons to move a shown one
// earlier or later, in the order the table shows them. Plain checkboxes and buttons, so Tab, Space and Enter
// work; Escape closes it and gives the focus back to its button.

export function ColumnChooser({
  shown,
  fromView,
  onChange,
}: {
  shown: readonly ListColumnId[];
  /** the columns are a saved view's (in the URL) rather than this browser's */
  fromView: boolean;
  onChange: (next: ListColumnId[]) => void;
}) {
  const { open, flip, box, toggle } = usePopover();
  const rows = chooserRows(shown);
  return (
    <div ref={box} className="relative max-sm:static">
      <Button ref={toggle} size="sm" variant="ghost" aria-expanded={open} aria-haspopup="dialog" onClick={flip}>
        Columns ▾
      </Button>
      {open && (
        <div
          role="dialog"
          aria-label="Columns"
          // The list's shortcuts (j, k, a, q, x) must not act on rows while choosing columns.
          onKeyDown={(e) => e.stopPropagation()}
          className="absolute right-0 z-30 mt-1 w-72 max-w-[calc(100vw-2rem)] space-y-2 rounded border border-slate-200 bg-white p-2 text-slate-900 shadow-lg dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
        >
          <p className="px-1 text-xs text-slate-600 dark:text-slate-300">
            {fromView ? "The view's columns (kept in the link)" : "Remembered in this browser"}
          </p>
          <ul aria-label="Columns, in order" className="space-y-0.5">
            {rows.map(({ id, shown: on }, i) => {
              const label = LIST_COLUMN_LABELS[id];
              return (
                <li key={id} className="flex items-center gap-1 rounded px-1 hover:bg-slate-50 dark:hover:bg-slate-800">
                  <label className="flex min-w-0 flex-1 cursor-pointer items-center gap-2 py-0.5 text-sm">
                    <input
                      type="checkbox"
                      checked={on}
                      // The last shown column stays: a table without columns shows nothing.
                      disabled={on && shown.length === 1}
                      onChange={() => onChange(toggleColumn(shown, id))}
                    />
                    <span className="truncate">{label}</span>
                  </label>
                  {on && (
                    <>
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={`Move ${label} earlier`}
                        disabled={i === 0}
                        onClick={() => onChange(moveColumn(shown, id, -1))}
                      >
                        ↑
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={`Move ${label} later`}
                        disabled={i === shown.length - 1}
                        onClick={() => onChange(moveColumn(shown, id, 1))}
                      >
                        ↓
                      </Button>
                    </>
                  )}
                </li>
              );
            })}
          </ul>
          <div className="border-t border-slate-200 pt-2 dark:border-slate-700">
            <Button size="sm" disabled={sameColumns(shown, DEFAULT_COLUMNS)} onClick={() => onChange([...DEFAULT_COLUMNS])}>
              Default columns
            </Button>
          </div>
        </div>
      )}
    </div>
  );
}
