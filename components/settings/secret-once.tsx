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
    <div role="status" className="space-y-2 rounded border border-emerald-200 bg-emerald-50 p-3 text-sm">
      <p className="font-medium text-emerald-900">{label}</p>
      <p className="text-emerald-900">Copy it now: it is not stored and will not be shown again.</p>
      <div className="flex items-center gap-2">
        <code className="min-w-0 flex-1 truncate rounded border border-emerald-200 bg-white px-2 py-1 font-mono text-xs" aria-label={label}>
          {value}
        </code>
        <button type="button" onClick={copy} className="rounded border border-emerald-300 bg-white px-2 py-1 text-xs hover:bg-emerald-100">
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={onDismiss} className="rounded px-2 py-1 text-xs text-emerald-900 hover:underline">
          Done
        </button>
      </div>
    </div>
  );
}
