import { z } from "zod";

// The list's choosable columns: their ids (shared by the table, the column chooser, the URL and saved views),
// the default layout, and the pure edits the chooser makes. The selection checkbox is not a column one chooses:
// it is always first. Client-safe and pure.

/** Every column the list can show, in the default order. */
export const LIST_COLUMN_IDS = [
  "kind",
  "source",
  "idempotencyKey",
  "reason",
  "failureClass",
  "status",
  "observedAt",
  "replayCount",
] as const;
export type ListColumnId = (typeof LIST_COLUMN_IDS)[number];

export const LIST_COLUMN_LABELS: Record<ListColumnId, string> = {
  kind: "Kind",
  source: "Source",
  idempotencyKey: "Key / hash",
  reason: "Failure reason",
  failureClass: "Class",
  status: "Status",
  observedAt: "Observed (UTC)",
  replayCount: "Replays",
};

export const DEFAULT_COLUMNS: readonly ListColumnId[] = LIST_COLUMN_IDS;

const KNOWN = new Set<string>(LIST_COLUMN_IDS);
export const isListColumnId = (id: string): id is ListColumnId => KNOWN.has(id);

/** A saved view's or the URL's column list: known ids, each once; empty means the default layout. */
export const ListColumnsSchema = z
  .array(z.enum(LIST_COLUMN_IDS, { error: (i) => `unknown column ${JSON.stringify(i.input)}: one of ${LIST_COLUMN_IDS.join(", ")}` }))
  .max(LIST_COLUMN_IDS.length)
  .refine((ids) => new Set(ids).size === ids.length, "names a column twice")
  .describe(`column ids to show, in order (${LIST_COLUMN_IDS.join(", ")}); empty: the list's default columns`);

/**
 * Columns as read from a place that may be stale or edited (the URL, this browser's storage): unknown ids and
 * repeats dropped, order kept; nothing left is the default layout, since a list without columns shows nothing.
 */
export function readColumns(ids: readonly string[] | null | undefined): ListColumnId[] {
  const out: ListColumnId[] = [];
  for (const id of ids ?? []) if (isListColumnId(id) && !out.includes(id)) out.push(id);
  return out.length > 0 ? out : [...DEFAULT_COLUMNS];
}

/** The URL's `cols=` value ("kind,reason,status"), or null when absent. */
export function columnsFromParam(value: string | null): ListColumnId[] | null {
  return value === null ? null : readColumns(value.split(","));
}

export const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/** Shown ↔ hidden. A column shown again takes its default place among the shown ones; the last one stays. */
export function toggleColumn(shown: readonly ListColumnId[], id: ListColumnId): ListColumnId[] {
  if (shown.includes(id)) return shown.length === 1 ? [...shown] : shown.filter((c) => c !== id);
  const rank = LIST_COLUMN_IDS.indexOf(id);
  const at = shown.findIndex((c) => LIST_COLUMN_IDS.indexOf(c) > rank);
  return at < 0 ? [...shown, id] : [...shown.slice(0, at), id, ...shown.slice(at)];
}

/** A shown column one place to the left (-1) or right (+1); at an end it stays. */
export function moveColumn(shown: readonly ListColumnId[], id: ListColumnId, by: -1 | 1): ListColumnId[] {
  const from = shown.indexOf(id);
  const to = from + by;
  if (from < 0 || to < 0 || to >= shown.length) return [...shown];
  const next = [...shown];
  next[from] = shown[to] as ListColumnId;
  next[to] = id;
  return next;
}

/** Every column, the shown ones first in their order, then the hidden ones in the default order: the chooser's rows. */
export function chooserRows(shown: readonly ListColumnId[]): { id: ListColumnId; shown: boolean }[] {
  return [
    ...shown.map((id) => ({ id, shown: true })),
    ...LIST_COLUMN_IDS.filter((id) => !shown.includes(id)).map((id) => ({ id, shown: false })),
  ];
}
