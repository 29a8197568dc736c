"use client";

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
