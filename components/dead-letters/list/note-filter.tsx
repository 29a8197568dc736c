"use client";

import { useState } from "react";

/**
 * The list's `note` filter: records whose notes contain this text (any case). Applied on Enter or when the field
 * is left, so typing does not refetch the list at every key; the parent keys it by the applied value, so a chip
 * removed or a view picked shows here.
 */
export function NoteFilter({ value, onApply }: { value: string | undefined; onApply: (note: string | undefined) => void }) {
  const [text, setText] = useState(value ?? "");
  const apply = () => {
    const t = text.trim();
    // Shorter text is not searched (the API needs 3+ characters): the field keeps it until there is more.
    if (t.length > 0 && t.length < 3) return;
    if (t !== (value ?? "")) onApply(t || undefined);
  };
  return (
    <div>
      <label htmlFor="dl-note" className="block text-xs font-medium text-slate-600 dark:text-slate-300">
        Notes contain
      </label>
      <input
        id="dl-note"
        type="search"
        value={text}
        minLength={3}
        maxLength={200}
        placeholder="3+ characters"
        onChange={(e) => setText(e.target.value)}
        onBlur={apply}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            apply();
          }
        }}
        className="block w-44 rounded border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
      />
    </div>
  );
}
