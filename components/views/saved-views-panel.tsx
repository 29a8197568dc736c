"use client";

import Link from "next/link";
import { viewQuery } from "@/lib/dead-letters/contract/views";
import { useSavedViews } from "./queries";
import { ViewCount } from "./view-count";

/** On the overview: the reader's saved views and the shared ones, each with its live count, linking to the list. */
export function SavedViewsPanel() {
  const views = useSavedViews();
  return (
    <section aria-label="Saved views" className="rounded border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900">
      <h2 className="mb-2 text-sm font-semibold text-slate-900 dark:text-slate-100">Saved views</h2>
      {views.isPending ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">…</p>
      ) : views.isError ? (
        <p className="text-sm text-red-700 dark:text-red-300">Could not load saved views.</p>
      ) : views.data.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">
          None yet: save a filter from the{" "}
          <Link href="/dead-letters" className="text-sky-800 underline dark:text-sky-300">
            list
          </Link>
          &apos;s Views menu.
        </p>
      ) : (
        <ul className="space-y-0.5 text-sm">
          {views.data.map((v) => (
            <li key={v.id} className="flex items-center gap-2">
              <Link href={`/dead-letters?${viewQuery(v) || "all"}`} className="truncate text-sky-800 hover:underline dark:text-sky-300">
                {v.name}
              </Link>
              {v.isDefault && <span title="Your default view">★</span>}
              {v.shared && <span className="text-xs text-slate-500 dark:text-slate-400">shared by {v.owner.email ?? "someone"}</span>}
              <ViewCount view={v} className="ml-auto" />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
