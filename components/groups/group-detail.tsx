"use client";

import { useMemo, useState } from "react";
import { TriageList, type ListScope } from "@/components/dead-letters/list/triage-list";
import { Button } from "@/components/ui/button";
import { DayTrend } from "@/components/ui/day-trend";
import type { FailureGroupDetail, GroupPatch } from "@/lib/dead-letters/contract/groups";
import type { ListPage } from "@/lib/dead-letters/contract/list";
import type { Facets } from "@/lib/dead-letters/contract/facets";
import { NoteText } from "@/components/notes/note-text";
import { GroupStatusBadge, when } from "./group-badges";
import { useGroup, usePatchGroup } from "./queries";
import { countOf } from "@/lib/vocabulary/plural";

// A failure group's page: its state (status, owner, resolution, regression), the notes thread, and its records
// in the dead-letter list itself (filters, selection, bulk actions, keyboard), fixed to the group's source and
// reason, with "Replay this group" into the replay form. Polls, so a second analyst's changes appear within
// seconds; a status or owner change names the version it was based on, so one made on a stale copy is refused
// (409) and shown rather than overwriting the other person's.

export interface Owner {
  id: string;
  name: string;
  email: string;
}

/** The resolution a group gets from "Resolve the group" once nothing in it is left to do. */
const ALL_DONE_REASON = "every record resolved (replayed or discarded)";

const FIELD = "rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100";
const PANEL = "space-y-2 rounded border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900";

export function GroupDetail({
  initial,
  renderedAt,
  owners,
  list,
  canTriage,
  canUnmask,
  canReplay,
}: {
  initial: FailureGroupDetail;
  renderedAt: number;
  owners: Owner[];
  /** the list's first page and counts under the group's filter and the URL's */
  list: { key: string; page: ListPage; facets: Facets; renderedAt: number };
  canTriage: boolean;
  canUnmask: boolean;
  canReplay: boolean;
}) {
  const { data: g } = useGroup(initial, renderedAt);
  const patch = usePatchGroup(g.id);
  const [reason, setReason] = useState("");
  const [link, setLink] = useState("");
  const [note, setNote] = useState("");
  // Status, owner and resolution changes carry the version shown; a note never conflicts.
  const act = (p: GroupPatch, done?: () => void) =>
    patch.mutate(p.note === undefined ? { ...p, version: g.version } : p, { onSuccess: done });
  const scope = useMemo<ListScope>(
    () => ({
      path: `/groups/${g.id}`,
      fixed: { source: [g.source], reason: g.reasonGroup },
      title: "Records in this group",
      replayLabel: "Replay this group…",
      // The header polls the group: when its records change (one arrived, one was decided elsewhere), the list
      // reads them again rather than showing other counts than the header above it.
      revision: `${g.count}:${g.unresolved}:${g.lastSeenAt ?? ""}`,
    }),
    [g.id, g.source, g.reasonGroup, g.count, g.unresolved, g.lastSeenAt],
  );
  // Every record replayed or discarded while the group is still open: say so, and offer to resolve it.
  const allDone = g.count > 0 && g.unresolved === 0 && (g.status === "open" || g.status === "acknowledged");
  // The owner may no longer be assignable (disabled, role changed): still shown as the select's value.
  const choices = g.owner && !owners.some((o) => o.id === g.owner?.id) ? [...owners, g.owner] : owners;

  return (
    <div className="space-y-4">
      <header className="space-y-1">
        <p className="text-xs uppercase text-slate-500 dark:text-slate-400">Failure group · {g.source}</p>
        <h1 id="group-heading" className="break-words font-mono text-base font-semibold">
          {g.reasonGroup}
        </h1>
        <div className="flex flex-wrap items-center gap-3 text-sm text-slate-700 dark:text-slate-300">
          <span data-testid="group-status">
            <GroupStatusBadge group={g} />
          </span>
          <span data-testid="group-count">{countOf(g.count, "record")}</span>
          <span>{g.unresolved.toLocaleString("en")} unresolved</span>
          <span>first seen {when(g.firstSeenAt)}</span>
          <span>latest arrival {when(g.lastSeenAt)}</span>
          <DayTrend trend={g.trend} />
        </div>
        {g.regression && (
          <p
            role="status"
            className="rounded border border-red-200 bg-red-50 px-3 py-1.5 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
          >
            Regression: new records arrived on {when(g.regressedAt)} after the group was resolved
            {g.resolution ? ` (“${g.resolution.reason}”)` : ""}.
          </p>
        )}
        {g.status === "resolved" && g.resolution && (
          <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="group-resolution">
            Resolved {when(g.resolution.at)}
            {g.resolvedBy ? ` by ${g.resolvedBy}` : ""}: {g.resolution.reason}
            {g.resolution.link && (
              <>
                {" · "}
                <a href={g.resolution.link} rel="noreferrer noopener" target="_blank" className="text-sky-800 underline dark:text-sky-300">
                  {g.resolution.link}
                </a>
              </>
            )}
          </p>
        )}
        {allDone && (
          <p
            role="status"
            className="flex flex-wrap items-center gap-2 rounded border border-emerald-200 bg-emerald-50 px-3 py-1.5 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-100"
          >
            {g.count === 1 ? "Its record is" : `All ${countOf(g.count, "record")} are`} resolved (replayed or discarded): nothing is left to
            do here, but the group is still {g.status}.
            {canTriage && (
              <Button
                size="sm"
                variant="approve"
                disabled={patch.isPending}
                onClick={() => act({ status: "resolved", resolution: { reason: ALL_DONE_REASON } })}
              >
                Resolve the group
              </Button>
            )}
          </p>
        )}
        {g.status === "ignored" && (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Ignored: left out of the overview&apos;s counts and the alerts; its records are kept.
          </p>
        )}
      </header>

      <div className="grid gap-4 lg:grid-cols-2">
        <section aria-label="Work on this group" className={PANEL}>
          <h2 className="text-sm font-semibold">Status and owner</h2>
          {patch.conflict && (
            <p
              role="alert"
              className="rounded border border-amber-300 bg-amber-50 px-2 py-1 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
            >
              Someone else changed this group while you were looking, so your change was not made. The page now shows their change: check
              it, then try again if it is still needed.
            </p>
          )}
          {canTriage ? (
            <>
              <div className="flex flex-wrap gap-2">
                {g.status !== "acknowledged" && (
                  <Button size="sm" disabled={patch.isPending} onClick={() => act({ status: "acknowledged" })}>
                    Acknowledge
                  </Button>
                )}
                {g.status !== "open" && (
                  <Button size="sm" disabled={patch.isPending} onClick={() => act({ status: "open" })}>
                    Reopen
                  </Button>
                )}
                {g.status !== "ignored" && (
                  <Button size="sm" variant="ghost" disabled={patch.isPending} onClick={() => act({ status: "ignored" })}>
                    Ignore
                  </Button>
                )}
              </div>
              <label className="flex items-center gap-2 text-sm">
                Owner
                <select
                  className={FIELD}
                  value={g.owner?.id ?? ""}
                  disabled={patch.isPending}
                  onChange={(e) => act({ owner: e.target.value || null })}
                >
                  <option value="">Unassigned</option>
                  {choices.map((o) => (
                    <option key={o.id} value={o.id} title={o.name}>
                      {o.email}
                    </option>
                  ))}
                </select>
              </label>
              <form
                className="space-y-1"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (!reason.trim()) return;
                  act({ status: "resolved", resolution: { reason: reason.trim(), ...(link.trim() ? { link: link.trim() } : {}) } }, () => {
                    setReason("");
                    setLink("");
                  });
                }}
              >
                <label className="block text-sm">
                  Resolve: why
                  <input
                    className={`${FIELD} mt-0.5 w-full`}
                    value={reason}
                    onChange={(e) => setReason(e.target.value)}
                    placeholder="fixed upstream in release 4.2"
                  />
                </label>
                <label className="block text-sm">
                  Link (optional)
                  <input
                    className={`${FIELD} mt-0.5 w-full`}
                    type="url"
                    value={link}
                    onChange={(e) => setLink(e.target.value)}
                    placeholder="https://…"
                  />
                </label>
                <Button type="submit" size="sm" variant="approve" disabled={patch.isPending || !reason.trim()}>
                  Resolve
                </Button>
              </form>
            </>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">Owner: {g.owner ? g.owner.name || g.owner.email : "unassigned"}</p>
          )}
        </section>

        <section aria-labelledby="notes-heading" className={PANEL}>
          <h2 id="notes-heading" className="text-sm font-semibold">
            Notes
          </h2>
          {g.notes.length === 0 ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">No notes yet.</p>
          ) : (
            <ol className="space-y-2" aria-label="Notes">
              {g.notes.map((n) => (
                <li key={n.id} className="text-sm">
                  <p className="text-xs text-slate-500 dark:text-slate-400">
                    {n.authorEmail} · {when(n.at)}
                  </p>
                  <NoteText note={{ text: n.body, mentions: n.mentions }} />
                </li>
              ))}
            </ol>
          )}
          {canTriage && (
            <form
              className="space-y-1"
              onSubmit={(e) => {
                e.preventDefault();
                if (note.trim()) act({ note: note.trim() }, () => setNote(""));
              }}
            >
              <label className="block text-sm">
                Add a note
                <textarea className={`${FIELD} mt-0.5 w-full`} rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
              </label>
              <Button type="submit" size="sm" disabled={patch.isPending || !note.trim()}>
                Add note
              </Button>
            </form>
          )}
        </section>
      </div>

      <TriageList initial={list} canTriage={canTriage} canUnmask={canUnmask} canReplay={canReplay} scope={scope} />
    </div>
  );
}
