"use client";

import Link from "next/link";
import { NoteText } from "./note-text";
import { useMentions } from "./queries";

/** On the overview: notes that mention the reader, how many, the newest with a link to their record or failure group. */
export function MentionsPanel() {
  const mentions = useMentions();
  const data = mentions.data;
  return (
    <section aria-label="Mentions" className="rounded border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900">
      <h2 className="mb-2 text-sm font-semibold text-slate-900 dark:text-slate-100">
        Mentions of you <span className="font-normal tabular-nums text-slate-500 dark:text-slate-400">{data ? `(${data.count})` : ""}</span>
      </h2>
      {!data ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">{mentions.isError ? "Could not load mentions." : "…"}</p>
      ) : data.items.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">Nobody has mentioned you in a note.</p>
      ) : (
        <ul className="max-h-64 space-y-2 overflow-y-auto">
          {data.items.slice(0, 8).map((n) => (
            <li key={n.id}>
              <p className="text-xs text-slate-500 dark:text-slate-400">
                {n.group ? (
                  <Link
                    href={`/groups/${n.group.id}`}
                    title={n.group.reasonGroup}
                    className="font-medium text-sky-800 hover:underline dark:text-sky-300"
                  >
                    group {n.group.source}: {n.group.reasonGroup.length > 40 ? `${n.group.reasonGroup.slice(0, 39)}…` : n.group.reasonGroup}
                  </Link>
                ) : (
                  <Link href={`/dead-letters/${n.deadLetterId}`} className="font-medium text-sky-800 hover:underline dark:text-sky-300">
                    #{n.deadLetterId}
                  </Link>
                )}{" "}
                · {n.author.name || n.author.email} · <time dateTime={n.createdAt}>{n.createdAt.slice(0, 16).replace("T", " ")}</time>
              </p>
              <NoteText note={n} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
