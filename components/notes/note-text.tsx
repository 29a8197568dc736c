import { mentionSegments } from "@/lib/dead-letters/notes/mentions";
import type { Note } from "@/lib/dead-letters/contract/notes";

/** A note's text as text (React escapes it: no HTML, no markdown), its resolved @mentions highlighted. */
export function NoteText({ note }: { note: Pick<Note, "text" | "mentions"> }) {
  const handles = new Set(note.mentions.flatMap((m) => [m.handle.toLowerCase(), m.email.split("@")[0]!.toLowerCase()]));
  return (
    <p className="whitespace-pre-wrap text-sm text-slate-800 wrap-anywhere dark:text-slate-200">
      {mentionSegments(note.text, handles).map((s, i) =>
        s.mention ? (
          <mark key={i} className="rounded bg-sky-100 px-0.5 font-medium text-sky-900 dark:bg-sky-900 dark:text-sky-100">
            {s.text}
          </mark>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </p>
  );
}
