"use client";

import { useLayoutEffect, useRef } from "react";

// Single-key shortcuts (j, k, a, q, e, ?…) for fast triage. Ignored while typing in a field or the code editor,
// with a modifier held (so browser shortcuts keep working), or while a modal dialog is open.

export type HotkeyMap = Record<string, (event: KeyboardEvent) => void>;

/** Inputs that take no text: after ticking a facet checkbox, `j` must still move down the list. */
const NOT_TEXT = new Set(["checkbox", "radio", "button", "submit", "reset", "range", "color", "file", "image"]);

function typing(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement && NOT_TEXT.has(target.type)) {
    // Space toggles a checkbox or radio; Enter does nothing to one (so a row's Enter still opens it after a
    // facet was ticked) but presses a button or submits a form.
    return key === " " || (key === "Enter" && target.type !== "checkbox" && target.type !== "radio");
  }
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.closest(".cm-editor") !== null;
}

export function useHotkeys(keys: HotkeyMap, enabled = true): void {
  const latest = useRef(keys);
  // Before paint, so a key pressed as soon as a new render is visible runs that render's handlers, not the last ones.
  useLayoutEffect(() => {
    latest.current = keys;
  });
  // Listening from before paint too: when a navigation swaps the page, a key pressed as the new record appears
  // must not fall between the old page's listener going and the new one's arriving.
  useLayoutEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target, e.key)) return;
      if (document.querySelector("dialog[open]")) return;
      const handler = latest.current[e.key];
      if (!handler) return;
      e.preventDefault();
      handler(e);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [enabled]);
}
