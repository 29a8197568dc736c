"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { usePopover } from "@/components/ui/use-popover";
import { filterFromParams, filterKey } from "@/lib/dead-letters/filter-url";
import { DEFAULT_COLUMNS, sameColumns } from "@/lib/dead-letters/list-columns";
import type { ListFilter } from "@/lib/dead-letters/filters";
import type { SavedView } from "@/lib/dead-letters/contract/views";
import { useSavedViews, useViewChange } from "./queries";
import { ViewCount } from "./view-count";

// The list header's "Views" menu: pick a saved view (its filter and columns replace the list's), save the current
// filter and columns as one (personal or shared), make one the default (/dead-letters without a filter opens
// it), rename, update (with the list's current filter and columns) or delete one's own. The list has one order, so
// a view's sort is newest first.

type Apply = (filter: ListFilter, columns: string[]) => void;

/** The list's filter (canonical query string) and columns as a view stores them ([]: the reader's own). */
interface Current {
  filter: string;
  columns: string[];
}

function ViewRow({ view, current, onApply }: { view: SavedView; current: Current; onApply: Apply }) {
  const change = useViewChange();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const active = view.filter === current.filter;
  const differs = !active || !sameColumns(view.columns, current.columns);
  if (renaming !== null) {
    return (
      <li>
        <form
          className="flex items-center gap-1"
          onSubmit={(e) => {
            e.preventDefault();
            if (renaming.trim())
              change.mutate({ op: "update", id: view.id, patch: { name: renaming.trim() } }, { onSuccess: () => setRenaming(null) });
          }}
        >
          <input
            aria-label={`New name for ${view.name}`}
            value={renaming}
            maxLength={80}
            autoFocus
            onChange={(e) => setRenaming(e.target.value)}
            className="min-w-0 flex-1 rounded border border-slate-300 bg-white px-1.5 py-0.5 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100"
          />
          <Button type="submit" size="sm">
            Save
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setRenaming(null)}>
            Cancel
          </Button>
        </form>
      </li>
    );
  }
  return (
    <li className="flex items-center gap-1">
      <button
        type="button"
        onClick={() => onApply(filterFromParams(new URLSearchParams(view.filter)).filter, view.columns)}
        aria-current={active ? "true" : undefined}
        title={`${view.filter ? `Filter: ${view.filter}` : "No filter: every record"}${view.columns.length ? ` · columns: ${view.columns.join(", ")}` : ""}`}
        className={`flex min-w-0 flex-1 items-center gap-1.5 rounded px-1.5 py-1 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800 ${active ? "font-semibold" : ""}`}
      >
        <span className="truncate">{view.name}</span>
        {view.shared && (
          <span className="rounded bg-slate-100 px-1 text-[10px] uppercase text-slate-600 dark:bg-slate-800 dark:text-slate-300">
            shared
          </span>
        )}
        <ViewCount view={view} className="ml-auto" />
      </button>
      <Button
        size="sm"
        variant="ghost"
        aria-pressed={view.isDefault}
        aria-label={view.isDefault ? `${view.name} is your default view (unset)` : `Make ${view.name} my default view`}
        title={view.isDefault ? "Your default view: click to unset" : "Open the list with this view"}
        onClick={() => change.mutate({ op: "default", id: view.isDefault ? null : view.id })}
      >
        {view.isDefault ? "★" : "☆"}
      </Button>
      {view.editable &&
        (confirmDelete ? (
          <>
            <Button size="sm" variant="danger" onClick={() => change.mutate({ op: "delete", id: view.id })}>
              Delete {view.shared ? "for everyone" : ""}
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setConfirmDelete(false)}>
              Keep
            </Button>
          </>
        ) : (
          <>
            <Button size="sm" variant="ghost" aria-label={`Rename ${view.name}`} onClick={() => setRenaming(view.name)}>
              ✎
            </Button>
            {differs && (
              <Button
                size="sm"
                variant="ghost"
                aria-label={`Update ${view.name} with the current filter and columns`}
                title={`Update with the list as it is now${view.shared ? " (for everyone it is shared with)" : ""}`}
                onClick={() => change.mutate({ op: "update", id: view.id, patch: { filter: current.filter, columns: current.columns } })}
              >
                ⟳
              </Button>
            )}
            <Button
              size="sm"
              variant="ghost"
              aria-label={view.shared ? `Stop sharing ${view.name}` : `Share ${view.name} with the team`}
              title={view.shared ? "Shared with the team: click to make it personal" : "Personal: click to share with the team"}
              onClick={() => change.mutate({ op: "update", id: view.id, patch: { shared: !view.shared } })}
            >
              {view.shared ? "⇄" : "⇆"}
            </Button>
            <Button size="sm" variant="ghost" aria-label={`Delete ${view.name}`} onClick={() => setConfirmDelete(true)}>
              ✕
            </Button>
          </>
        ))}
    </li>
  );
}

export function ViewsMenu({ filter, columns, onApply }: { filter: ListFilter; columns: readonly string[]; onApply: Apply }) {
  const { open, setOpen, flip, box, toggle } = usePopover();
  const views = useSavedViews(open);
  const change = useViewChange();
  const [name, setName] = useState("");
  const [shared, setShared] = useState(false);
  // The default layout is no choice: a view saved with it opens with the reader's own columns.
  const current: Current = { filter: filterKey(filter), columns: sameColumns(columns, DEFAULT_COLUMNS) ? [] : [...columns] };
  return (
    <div ref={box} className="relative max-sm:static">
      <Button ref={toggle} size="sm" variant="ghost" aria-expanded={open} aria-haspopup="dialog" onClick={flip}>
        Views ▾
      </Button>
      {open && (
        <div
          role="dialog"
          aria-label="Saved views"
          // The list's shortcuts (j, k, a, q, /) must not fire while typing a view's name.
          onKeyDown={(e) => e.stopPropagation()}
          className="absolute right-0 z-30 mt-1 w-96 max-w-[calc(100vw-2rem)] space-y-2 rounded border border-slate-200 bg-white p-2 text-slate-900 shadow-lg dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
        >
          {views.isPending ? (
            <p className="px-1.5 text-sm text-slate-500 dark:text-slate-400">Loading views…</p>
          ) : views.isError ? (
            <p role="alert" className="px-1.5 text-sm text-red-700 dark:text-red-300">
              {views.error.message}
            </p>
          ) : views.data.length === 0 ? (
            <p className="px-1.5 text-sm text-slate-500 dark:text-slate-400">No saved views yet.</p>
          ) : (
            <ul className="max-h-80 space-y-0.5 overflow-y-auto" aria-label="Views">
              {views.data.map((v) => (
                <ViewRow
                  key={v.id}
                  view={v}
                  current={current}
                  onApply={(f, cols) => {
                    onApply(f, cols);
                    setOpen(false);
                  }}
                />
              ))}
            </ul>
          )}
          <form
            className="space-y-1 border-t border-slate-200 pt-2 dark:border-slate-700"
            onSubmit={(e) => {
              e.preventDefault();
              const n = name.trim();
              if (n)
                change.mutate(
                  { op: "create", name: n, shared, filter: current.filter, columns: current.columns },
                  { onSuccess: () => setName("") },
                );
            }}
          >
            <label htmlFor="view-name" className="block text-xs font-medium text-slate-600 dark:text-slate-300">
              Save the current filter and columns as a view
            </label>
            <div className="flex items-center gap-2">
              <input
                id="view-name"
                value={name}
                maxLength={80}
                placeholder="name"
                onChange={(e) => setName(e.target.value)}
                className="min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100"
              />
              <label className="flex items-center gap-1 text-xs text-slate-700 dark:text-slate-300">
                <input type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} /> Shared
              </label>
              <Button type="submit" size="sm" variant="primary" disabled={!name.trim() || change.isPending}>
                Save view
              </Button>
            </div>
          </form>
        </div>
      )}
    </div>
  );
}
