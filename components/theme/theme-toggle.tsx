"use client";

import { useEffect, useSyncExternalStore } from "react";
import { isThemeChoice, resolveDark, THEME_CHOICES, THEME_STORAGE_KEY, type ThemeChoice } from "./theme-script";

// The header's theme choice: System (the default, follows prefers-color-scheme live), Light or Dark, kept in
// localStorage. The class itself is first set by THEME_SCRIPT before paint; this keeps it in step afterwards.

const LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

function readChoice(): ThemeChoice {
  try {
    const stored = localStorage.getItem(THEME_STORAGE_KEY);
    return isThemeChoice(stored) ? stored : "system";
  } catch {
    return "system";
  }
}

function apply(choice: ThemeChoice, systemDark: boolean) {
  const dark = resolveDark(choice, systemDark);
  document.documentElement.classList.toggle("dark", dark);
  document.documentElement.style.colorScheme = dark ? "dark" : "light";
}

// The stored choice as an external store: "system" on the server and at hydration, then what storage holds; a
// choice made in another tab arrives by the storage event.
const listeners = new Set<() => void>();
function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  window.addEventListener("storage", onChange);
  return () => {
    listeners.delete(onChange);
    window.removeEventListener("storage", onChange);
  };
}

export function ThemeToggle() {
  const choice = useSyncExternalStore(subscribe, readChoice, () => "system" as const);

  useEffect(() => {
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    apply(choice, media.matches);
    const onSystemChange = () => apply(choice, media.matches);
    media.addEventListener("change", onSystemChange);
    return () => media.removeEventListener("change", onSystemChange);
  }, [choice]);

  function choose(next: ThemeChoice) {
    try {
      if (next === "system") localStorage.removeItem(THEME_STORAGE_KEY);
      else localStorage.setItem(THEME_STORAGE_KEY, next);
    } catch {
      // storage blocked: the system's setting stays in force
    }
    for (const l of listeners) l();
  }

  return (
    <label className="flex items-center gap-1 text-slate-600 dark:text-slate-300">
      <span className="sr-only">Theme</span>
      <select
        value={choice}
        onChange={(e) => isThemeChoice(e.target.value) && choose(e.target.value)}
        className="rounded border border-slate-300 bg-white px-1 py-0.5 text-xs text-slate-700 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-200"
      >
        {THEME_CHOICES.map((c) => (
          <option key={c} value={c}>
            {LABELS[c]}
          </option>
        ))}
      </select>
    </label>
  );
}
