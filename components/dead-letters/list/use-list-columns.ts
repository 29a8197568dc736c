"use client";

import { useCallback, useSyncExternalStore } from "react";
import { columnsFromParam, readColumns, sameColumns, DEFAULT_COLUMNS, type ListColumnId } from "@/lib/dead-letters/list-columns";

// The list's columns: a view's own (in the URL as `cols=`, so a reload or a shared link keeps them), else the
// ones this browser last chose (localStorage), else the default. A change goes where the columns came from:
// into the URL while a view's columns are shown, into this browser's memory otherwise.

const STORAGE_KEY = "redrive.list.columns";
const CHANGED = "redrive:list-columns";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  window.addEventListener(CHANGED, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(CHANGED, onChange);
  };
}

const stored = () => {
  try {
    return window.localStorage.getItem(STORAGE_KEY) ?? "";
  } catch {
    return ""; // storage refused (private mode, policy): the default columns
  }
};

export function useListColumns(urlValue: string | null, writeUrl: (cols: ListColumnId[] | null) => void) {
  // The server renders the default; the browser's choice follows on hydration.
  const remembered = useSyncExternalStore(subscribe, stored, () => "");
  const fromUrl = columnsFromParam(urlValue);
  const shown = fromUrl ?? readColumns(remembered ? remembered.split(",") : null);
  const change = useCallback(
    (next: ListColumnId[]) => {
      if (urlValue !== null) {
        writeUrl(next);
        return;
      }
      try {
        if (sameColumns(next, DEFAULT_COLUMNS)) window.localStorage.removeItem(STORAGE_KEY);
        else window.localStorage.setItem(STORAGE_KEY, next.join(","));
      } catch {
        // storage refused: nothing to remember the choice in, the columns stay as they were
        return;
      }
      window.dispatchEvent(new Event(CHANGED));
    },
    [urlValue, writeUrl],
  );
  return { shown, fromView: fromUrl !== null, change };
}
