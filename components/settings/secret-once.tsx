"use client";

import { useState } from "react";

/** A secret shown exactly once (new token, generated password), with a copy button. */
export function SecretOnce({ label, value, onDismiss }: { label: string; value: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  return (
    <div
      role="status"
      className="space-y-2 rounded border border-emerald-200 dark:border-emerald-800 bg-emerald-50 dark:bg-emerald-950/40 p-3 text-sm"
    >
      <p className="font-medium text-emerald-900 dark:text-emerald-100">{label}</p>
      <p className="text-emerald-900 dark:text-emerald-100">Copy it now: it is not stored and will not be shown again.</p>
      <div className="flex items-center gap-2">
        <code
          className="min-w-0 flex-1 truncate rounded border border-emerald-200 dark:border-emerald-800 bg-white dark:bg-slate-900 px-2 py-1 font-mono text-xs"
          aria-label={label}
        >
          {value}
        </code>
        <button
          type="button"
          onClick={copy}
          className="rounded border border-emerald-300 dark:border-emerald-700 bg-white dark:bg-slate-900 px-2 py-1 text-xs hover:bg-emerald-100 dark:hover:bg-emerald-900/50"
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button
          type="button"
          onClick={onDismiss}
          className="rounded px-2 py-1 text-xs text-emerald-900 dark:text-emerald-100 hover:underline"
        >
          Done
        </button>
      </div>
    </div>
  );
}
