"use client";

import { useSyncExternalStore } from "react";

// Whether <html> carries the "dark" class, for what CSS cannot reach: MapLibre paint and chart colours, which are
// given as values, not classes. Watches the class so a toggle or a system change repaints without a reload.

function subscribe(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  return () => observer.disconnect();
}

const isDark = () => document.documentElement.classList.contains("dark");

export function useDarkTheme(): boolean {
  return useSyncExternalStore(subscribe, isDark, () => false);
}
