"use client";

import { createColumnHelper, tableFeatures } from "@tanstack/react-table";
import { ClassBadge, KindBadge, StatusBadge } from "@/components/dead-letters/badges";
import { CopyButton } from "@/components/ui/copy-button";
import { splitForMiddleTruncation } from "@/components/ui/middle-truncate";
import type { DeadLetterSummary } from "@/lib/dead-letters/contract/list";
import type { ListColumnId } from "@/lib/dead-letters/list-columns";

// The list's columns (TanStack Table v9: features and columns are module constants so row models are not
// rebuilt on every render; the chosen ones are picked from them, list-columns.ts). Widths live in column meta and are applied by the renderer as grid tracks.

export interface RowSelectionMeta {
  isSelected: (id: string) => boolean;
  toggle: (id: string) => void;
}

export const features = tableFeatures({
  tableMeta: {} as RowSelectionMeta,
  columnMeta: {} as { width: string; align?: "right" },
});

const helper = createColumnHelper<typeof features, DeadLetterSummary>();

const time = (iso: string) => iso.replace("T", " ").slice(0, 19);

export const columns = helper.columns([
  helper.display({
    id: "select",
    header: () => <span className="sr-only">Select</span>,
    cell: ({ row, table }) => (
      <input
        type="checkbox"
        aria-label={`Select #${row.original.id}`}
        checked={table.options.meta?.isSelected(row.original.id) ?? false}
        onClick={(e) => e.stopPropagation()}
        onChange={() => table.options.meta?.toggle(row.original.id)}
      />
    ),
    meta: { width: "2rem" },
  }),
  helper.accessor("kind", { header: "Kind", cell: (c) => <KindBadge kind={c.getValue()} />, meta: { width: "4.25rem" } }),
  helper.accessor("source", {
    header: "Source",
    cell: (c) => (
      <span className="truncate text-xs text-slate-600 dark:text-slate-300" title={c.getValue()}>
        {c.getValue()}
      </span>
    ),
    meta: { width: "6.75rem" },
  }),
  helper.accessor("idempotencyKey", {
    header: "Key / hash",
    cell: (c) => {
      const key = c.getValue();
      if (!key) return <span className="text-xs text-red-600 dark:text-red-400">none</span>;
      const { head, tail } = splitForMiddleTruncation(key);
      return (
        <span className="flex min-w-0 items-center font-mono text-xs" title={key}>
          {/* Cut in the middle: the head gives way (an ellipsis shows it is cut), the end that tells keys apart stays. */}
          <span className="flex min-w-0" data-testid="key-text">
            {head && <span className="truncate">{head}</span>}
            <span className="shrink-0 whitespace-pre">{tail}</span>
          </span>
          <CopyButton text={key} label={`Copy key of #${c.row.original.id}`} />
        </span>
      );
    },
    // Grows with the table beside the reason, which keeps the larger share.
    meta: { width: "minmax(7.75rem, 0.6fr)" },
  }),
  helper.accessor("reason", {
    header: "Failure reason",
    cell: (c) => (
      <span className="truncate" title={c.getValue()}>
        {c.getValue()}
      </span>
    ),
    meta: { width: "minmax(8rem, 1fr)" },
  }),
  helper.accessor("failureClass", {
    header: "Class",
    cell: (c) => <ClassBadge failureClass={c.getValue()} title={c.row.original.classReason} />,
    meta: { width: "8.5rem" },
  }),
  helper.accessor("status", { header: "Status", cell: (c) => <StatusBadge status={c.getValue()} />, meta: { width: "5.75rem" } }),
  helper.accessor("observedAt", {
    header: "Observed (UTC)",
    cell: (c) => (
      <time
        dateTime={c.getValue()}
        title={c.getValue()}
        className="whitespace-nowrap text-xs tabular-nums text-slate-600 dark:text-slate-300"
      >
        {time(c.getValue())}
      </time>
    ),
    meta: { width: "8.5rem" },
  }),
  helper.accessor("replayCount", {
    header: "Replays",
    cell: (c) => <span className="tabular-nums">{c.getValue()}</span>,
    meta: { width: "4.5rem", align: "right" },
  }),
]);

type ListColumn = (typeof columns)[number];

const idOf = (c: ListColumn) =>
  // An accessor column's definition has no id of its own: the table names it after its accessor key.
  c.id ?? ("accessorKey" in c ? String(c.accessorKey) : "");

/** The selection checkbox, then the chosen columns in the chosen order (list-columns.ts names them). */
export function chosenColumns(ids: readonly ListColumnId[]): ListColumn[] {
  const byId = new Map(columns.map((c) => [idOf(c), c]));
  const select = byId.get("select");
  return [...(select ? [select] : []), ...ids.flatMap((id) => byId.get(id) ?? [])];
}

/** Each column's id and grid track, for fitting them to the table's width (column-fit.ts). */
export function columnWidths(chosen: readonly ListColumn[]): { id: string; width: string }[] {
  return chosen.map((c) => ({ id: idOf(c), width: c.meta?.width ?? "1fr" }));
}

/** The grid tracks of the columns not hidden. */
export function gridTemplate(widths: { id: string; width: string }[], hidden: ReadonlySet<string>): string {
  return widths
    .filter((c) => !hidden.has(c.id))
    .map((c) => c.width)
    .join(" ");
}
