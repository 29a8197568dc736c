"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { NOTE_MAX_CHARS } from "@/lib/dead-letters/contract/notes";
import { NoteText } from "./note-text";
import { useAddNote, useNotes } from "./queries";

// The record's notes: a short thread (author, time, text) under its failure, with a box to add one for those who
// may write. `@name` mentions a user (their e-mail's local part, or their name without spaces).

export function NotesPanel({ recordId, canWrite }: { recordId: string; canWrite: boolean }) {
  const notes = useNotes(recordId);
  const add = useAddNote(recordId);
  const [text, setText] = useState("");
  const submit = () => {
    const t = text.trim();
    if (!t || add.isPending) return;
    add.mutate(t, { onSuccess: () => setText("") });
  };
  const items = notes.data ?? [];
  return (
    <section aria-label="Notes" className="rounded border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900">
      <h2 className="mb-2 text-sm font-semibold text-slate-900 dark:text-slate-100">
        Notes{items.length > 0 && <span className="ml-1 font-normal text-slate-500 dark:text-slate-400">({items.length})</span>}
      </h2>
      {notes.isPending ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">Loading notes…</p>
      ) : notes.isError ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          Notes could not be loaded: {notes.error.message}
        </p>
      ) : items.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">No notes yet.</p>
      ) : (
        <ol className="space-y-2" aria-label="Note thread">
          {items.map((n) => (
            <li key={n.id} className="border-l-2 border-slate-200 pl-2 dark:border-slate-700">
              <p className="text-xs text-slate-500 dark:text-slate-400">
                <span className="font-medium text-slate-700 dark:text-slate-300">{n.author.name || n.author.email}</span> ·{" "}
                <time dateTime={n.createdAt}>{n.createdAt.replace("T", " ").slice(0, 16)} UTC</time>
              </p>
              <NoteText note={n} />
            </li>
          ))}
        </ol>
      )}
      {canWrite && (
        <form
          className="mt-3 space-y-1"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <label htmlFor={`note-${recordId}`} className="block text-xs font-medium text-slate-600 dark:text-slate-300">
            Add a note (plain text; @name mentions a colleague)
          </label>
          <textarea
            id={`note-${recordId}`}
            value={text}
            maxLength={NOTE_MAX_CHARS}
            rows={2}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              // The record page's shortcuts (a, e, q, j, k) must not fire while typing; Ctrl/⌘+Enter sends.
              e.stopPropagation();
              if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
                e.preventDefault();
                submit();
              }
            }}
            className="block w-full rounded border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-950 dark:text-slate-100"
          />
          <div className="flex items-center gap-2">
            <Button type="submit" size="sm" variant="primary" disabled={!text.trim() || add.isPending}>
              {add.isPending ? "Adding…" : "Add note"}
            </Button>
            <span className="text-xs text-slate-500 dark:text-slate-400">
              {text.length.toLocaleString("en")} / {NOTE_MAX_CHARS.toLocaleString("en")}
            </span>
          </div>
        </form>
      )}
    </section>
  );
}
