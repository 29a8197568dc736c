"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { DayTrend } from "@/components/ui/day-trend";
import { EmptyNotice } from "@/components/ui/empty-notice";
import { GROUP_SORTS, GROUP_STATUSES, type FailureGroupView, type GroupSort } from "@/lib/dead-letters/contract/groups";
import { GroupStatusBadge, when } from "./group-badges";
import { useGroups } from "./queries";
import { countOf } from "@/lib/vocabulary/plural";

// /groups: failure groups (source + reason pattern) as issues a team works on, sorted by latest arrival, size or
// age, filtered by status. Polls, so a group acknowledged or reopened elsewhere changes here within seconds.

const SORT_LABEL: Record<GroupSort, string> = { new: "Latest arrival", size: "Most records", age: "Oldest" };
const SELECT = "rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100";

export function GroupList({
  initial,
  initialSort,
  initialStatus,
  renderedAt,
}: {
  initial: FailureGroupView[];
  initialSort: GroupSort;
  initialStatus: string;
  renderedAt: number;
}) {
  const router = useRouter();
  const [sort, setSort] = useState<GroupSort>(initialSort);
  const [status, setStatus] = useState(initialStatus);
  const first = sort === initialSort && status === initialStatus;
  const { data: groups = [], isError, error } = useGroups(sort, status, first ? initial : undefined, renderedAt);

  const change = (next: { sort?: GroupSort; status?: string }) => {
    const s = next.sort ?? sort;
    const st = next.status ?? status;
    setSort(s);
    setStatus(st);
    router.replace(`/groups?${new URLSearchParams({ sort: s, ...(st ? { status: st } : {}) })}`, { scroll: false });
  };

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <label className="flex items-center gap-1">
          Sort
          <select className={SELECT} value={sort} onChange={(e) => change({ sort: e.target.value as GroupSort })}>
            {GROUP_SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_LABEL[s]}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1">
          Status
          <select className={SELECT} value={status} onChange={(e) => change({ status: e.target.value })}>
            <option value="">All</option>
            <option value="open,acknowledged">Open or acknowledged</option>
            {GROUP_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <span className="text-slate-600 dark:text-slate-400" aria-live="polite">
          {countOf(groups.length, "group")}
        </span>
      </div>
      {isError && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error.message}
        </p>
      )}
      {groups.length === 0 ? (
        <EmptyNotice>No failure groups{status ? " with this status" : ""}.</EmptyNotice>
      ) : (
        // Scrolls sideways inside its own box on a narrow window, rather than widening the page.
        <div className="relative overflow-x-auto">
          <table className="w-full border-collapse bg-white text-sm dark:bg-slate-900">
            <thead>
              <tr className="border-b border-slate-200 text-left text-xs uppercase text-slate-500 dark:border-slate-700 dark:text-slate-400">
                <th className="px-2 py-1.5">Status</th>
                <th className="px-2 py-1.5">Reason pattern</th>
                <th className="px-2 py-1.5 max-md:hidden">Source</th>
                <th className="px-2 py-1.5 text-right max-md:hidden">Records</th>
                <th className="px-2 py-1.5 text-right max-md:hidden">Unresolved</th>
                <th className="px-2 py-1.5 max-md:hidden">14 days</th>
                <th className="px-2 py-1.5 max-md:hidden">Latest arrival</th>
                <th className="px-2 py-1.5 max-md:hidden">Owner</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.id} className="border-b border-slate-100 align-top dark:border-slate-800">
                  <td className="px-2 py-1.5">
                    {/* wraps on a phone, where the reason beside it needs the width */}
                    <div className="flex flex-wrap gap-1">
                      <GroupStatusBadge group={g} />
                      {g.count > 0 && g.unresolved === 0 && (g.status === "open" || g.status === "acknowledged") && (
                        <Badge tone="green" title="every record replayed or discarded: the group can be resolved">
                          nothing left
                        </Badge>
                      )}
                    </div>
                  </td>
                  <td className="max-w-xl px-2 py-1.5">
                    <Link
                      href={`/groups/${g.id}`}
                      className="break-words font-mono text-xs text-sky-800 hover:underline max-md:wrap-anywhere dark:text-sky-300"
                    >
                      {g.reasonGroup}
                    </Link>
                    {/* Below 768 px the columns beside it would be off the screen: what matters most, under it. */}
                    <p className="mt-0.5 text-xs text-slate-600 wrap-anywhere md:hidden dark:text-slate-300" data-testid="group-summary">
                      {g.source} · {countOf(g.count, "record")} · {g.unresolved.toLocaleString("en")} unresolved · latest{" "}
                      {when(g.lastSeenAt)}
                    </p>
                  </td>
                  <td className="px-2 py-1.5 max-md:hidden">{g.source}</td>
                  <td className="px-2 py-1.5 text-right tabular-nums max-md:hidden">{g.count.toLocaleString("en")}</td>
                  <td className="px-2 py-1.5 text-right tabular-nums max-md:hidden">{g.unresolved.toLocaleString("en")}</td>
                  <td className="px-2 py-1.5 max-md:hidden">
                    <DayTrend trend={g.trend} />
                  </td>
                  <td className="whitespace-nowrap px-2 py-1.5 tabular-nums max-md:hidden">{when(g.lastSeenAt)}</td>
                  <td className="px-2 py-1.5 max-md:hidden">{g.owner?.name || g.owner?.email || "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
