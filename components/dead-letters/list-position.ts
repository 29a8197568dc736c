"use client";

import { z } from "zod";

// The record last looked at under a list filter (its filterKey), for this tab: the list highlights it again when
// the analyst comes back (Escape, Back, "← Dead letters"), so `j` goes on from there rather than from the top.
// Written by the record page as it shows a record (opened from the list, or reached with j/k). sessionStorage: per tab,
// absent on the server.

const OPENED = "redrive:list-opened:";

export function rememberOpened(filterKey: string, id: string): void {
  try {
    window.sessionStorage.setItem(OPENED + filterKey, id);
  } catch {
    // storage full or disabled: the list then starts at the top, as before
  }
}

export function openedUnder(filterKey: string): string | null {
  if (typeof window === "undefined") return null;
  try {
    return window.sessionStorage.getItem(OPENED + filterKey);
  } catch {
    return null;
  }
}

// The list's selection, for this tab and one filter: opening a record (Enter, a click) unmounts the list, and coming
// back (Escape, Back) must find the rows still selected — a bulk decision is often prepared across a look at a few
// of them. Only the last filter's selection is kept: changing the filter clears the selection, as it always has.

const SELECTED = "redrive:list-selected";

const StoredSelectionSchema = z.discriminatedUnion("mode", [
  z.object({ key: z.string(), mode: z.literal("ids"), ids: z.array(z.string()) }),
  z.object({ key: z.string(), mode: z.literal("filter"), count: z.number().int().min(0), exact: z.boolean() }),
]);

export type StoredSelection = { mode: "ids"; ids: string[] } | { mode: "filter"; count: number; exact: boolean };

export function rememberSelection(filterKey: string, selection: StoredSelection): void {
  try {
    const empty = selection.mode === "ids" && selection.ids.length === 0;
    if (empty) window.sessionStorage.removeItem(SELECTED);
    else window.sessionStorage.setItem(SELECTED, JSON.stringify({ key: filterKey, ...selection }));
  } catch {
    // storage full or disabled: the selection then lasts as long as the list is shown, as before
  }
}

/** The selection kept for this filter, or null (none, another filter's, or unreadable). */
export function selectionUnder(filterKey: string): StoredSelection | null {
  if (typeof window === "undefined") return null;
  try {
    const parsed = StoredSelectionSchema.safeParse(JSON.parse(window.sessionStorage.getItem(SELECTED) ?? "null"));
    if (!parsed.success || parsed.data.key !== filterKey) return null;
    const { key: _key, ...selection } = parsed.data;
    return selection;
  } catch {
    return null;
  }
}
