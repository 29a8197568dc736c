"use client";

import { useMemo, useState } from "react";
import { CopyButton } from "./copy-button";
import { tokenizeJson, type TokenKind } from "./json-tokens";

// Highlighted JSON text. Tokens are rendered as React text nodes: a payload such as "<img src=x onerror=…>"
// shows as those characters and is never parsed as HTML. Very long texts are highlighted up to a limit and
// the rest shown plain, so a 100k-vertex geometry does not create a million spans.

const CLASS: Record<TokenKind, string> = {
  key: "text-sky-800 dark:text-sky-200",
  string: "text-emerald-800 dark:text-emerald-200",
  number: "text-violet-700 dark:text-violet-300",
  literal: "text-amber-700 dark:text-amber-300",
  punct: "text-slate-500 dark:text-slate-400",
  text: "text-slate-700 dark:text-slate-300",
};

const HIGHLIGHT_LIMIT = 60_000;

export function JsonView({ text, label, maxHeight = "24rem" }: { text: string; label: string; maxHeight?: string }) {
  const [full, setFull] = useState(false);
  const shown = full ? text : text.slice(0, HIGHLIGHT_LIMIT);
  const tokens = useMemo(() => tokenizeJson(shown), [shown]);
  return (
    <figure className="relative rounded border border-slate-200 dark:border-slate-700 bg-slate-50 dark:bg-slate-800" aria-label={label}>
      <div className="absolute right-1 top-1 z-10 bg-slate-50 dark:bg-slate-800">
        <CopyButton text={text} label={`Copy ${label.toLowerCase()}`} />
      </div>
      <pre className="overflow-auto whitespace-pre-wrap break-all p-3 pr-12 font-mono text-xs leading-5" style={{ maxHeight }}>
        <code>
          {tokens.map((t, i) => (
            <span key={i} className={CLASS[t.kind]}>
              {t.text}
            </span>
          ))}
        </code>
        {!full && text.length > HIGHLIGHT_LIMIT && (
          <button type="button" onClick={() => setFull(true)} className="mt-2 block text-xs text-sky-700 dark:text-sky-300 underline">
            Show all {text.length.toLocaleString("en")} characters
          </button>
        )}
      </pre>
    </figure>
  );
}
