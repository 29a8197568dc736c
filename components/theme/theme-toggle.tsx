"use client";

import { useEffect, useState } from "react";
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

export function ThemeToggle() {
  // "system" on the server and the first client render (no storage there), then the stored choice.
  const [choice, setChoice] = useState<ThemeChoice>("system");
  useEffect(() => setChoice(readChoice()), []);

  useEffect(() => {
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    const onSystemChange = () => apply(readChoice(), media.matches);
    media.addEventListener("change", onSystemChange);
    return () => media.removeEventListener("change", onSystemChange);
  }, []);

  function choose(next: ThemeChoice) {
    setChoice(next);
    try {
      if (next === "system") localStorage.removeItem(THEME_STORAGE_KEY);
      else localStorage.setItem(THEME_STORAGE_KEY, next);
    } catch {
      // storage blocked: the choice holds for this page only
    }
    apply(next, window.matchMedia("(prefers-color-scheme: dark)").matches);
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
