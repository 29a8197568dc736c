"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { countOf } from "@/lib/vocabulary/plural";
import { Button } from "@/components/ui/button";
import { DayTrend } from "@/components/ui/day-trend";
import { Dialog } from "@/components/ui/dialog";
import { EmptyNotice } from "@/components/ui/empty-notice";
import { ColumnHeaders, DividedBody, FramedTable, type Column } from "@/components/ui/table";
import type { QuarantineGroup } from "@/lib/dead-letters/contract/quarantine";
import { ExportMenu } from "./export-menu";
import { useQuarantineAction, useQuarantineGroups } from "./queries";

// Quarantined records by reason pattern: how many, and whether the pattern is still arriving (14-day trend by
// observation day). Each group can be released back to triage (the producer fixed it, or an analyst will) or
// purged by a supervisor (the payload must not be kept), always with a reason, after a confirmation. Under each
// pattern, the reasons people gave when they quarantined its records; a row opens the group's records.

const COLUMNS: (string | Column)[] = [
  "Kind",
  "Reason pattern",
  { label: "Records", align: "right" },
  {
    label: "Observed per UTC day, last 14 days",
    title: "records of the group per UTC day they were observed (not the day they were quarantined)",
  },
  { label: "Actions", srOnly: true },
];

/** The list of a group's quarantined records. */
const recordsOf = (g: QuarantineGroup) => `/dead-letters?status=quarantined&kind=${g.kind}&reason=${encodeURIComponent(g.reasonGroup)}`;

type Pending = { action: "release" | "purge"; group: QuarantineGroup };

export function QuarantineGroups({
  initial,
  renderedAt,
  canTriage,
  canPurge,
  canUnmask,
}: {
  initial: QuarantineGroup[];
  renderedAt: number;
  canTriage: boolean;
  canPurge: boolean;
  canUnmask: boolean;
}) {
  const { data: groups } = useQuarantineGroups(initial, renderedAt);
  const router = useRouter();
  const release = useQuarantineAction("release");
  const purge = useQuarantineAction("purge");
  const [pending, setPending] = useState<Pending | null>(null);
  const [reason, setReason] = useState("");

  const confirm = () => {
    if (!pending || !reason.trim()) return;
    // The group's count as the user saw it: records quarantined or released since answer 409 instead of riding along.
    const body = {
      filter: { reason: pending.group.reasonGroup, kind: [pending.group.kind] },
      reason: reason.trim(),
      expectedCount: pending.group.count,
    };
    (pending.action === "release" ? release : purge).mutate(body, { onSettled: () => setPending(null) });
    setReason("");
  };
  const total = groups.reduce((n, g) => n + g.count, 0);

  return (
    <div className="space-y-3">
      <div className="relative flex items-baseline justify-between gap-3">
        <p className="text-sm text-slate-600 dark:text-slate-300">
          {countOf(total, "quarantined record")} in {countOf(groups.length, "reason pattern")}
        </p>
        <ExportMenu filter={{ status: ["quarantined"] }} canUnmask={canUnmask} />
      </div>
      {groups.length === 0 ? (
        <EmptyNotice>Nothing in quarantine.</EmptyNotice>
      ) : (
        <FramedTable>
          <ColumnHeaders columns={COLUMNS} />
          <DividedBody>
            {groups.map((g) => (
              <tr
                key={`${g.kind}:${g.reasonGroup}`}
                // The whole row opens the group's records (its link is the keyboard's way there; the buttons act).
                className="cursor-pointer hover:bg-slate-50 dark:hover:bg-slate-800/60"
                onClick={(e) => {
                  if ((e.target as HTMLElement).closest("a, button")) return;
                  router.push(recordsOf(g));
                }}
              >
                <td className="px-3 py-1.5 text-xs text-slate-500 dark:text-slate-400">{g.kind}</td>
                <td className="px-3 py-1.5" title={g.reasonGroup}>
                  {/* Truncated on a block inside the cell (a cell's own max-width does not bind a table): the row
                        keeps its trend and actions in view on a narrow window. */}
                  <Link className="block max-w-[36vw] truncate hover:underline lg:max-w-xl" href={recordsOf(g)}>
                    {g.reasonGroup}
                  </Link>
                  {g.reasons && g.reasons.length > 0 && (
                    <ul
                      aria-label="Reasons given when quarantining"
                      className="mt-0.5 space-y-0.5 text-xs text-slate-600 dark:text-slate-300"
                    >
                      {g.reasons.map((r) => (
                        <li key={r.reason} className="block max-w-[36vw] truncate lg:max-w-xl" title={r.reason}>
                          Quarantined because: “{r.reason}”{g.count > 1 || r.count > 1 ? ` (${countOf(r.count, "record")})` : ""}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td className="px-3 py-1.5 text-right tabular-nums">{g.count.toLocaleString("en")}</td>
                <td className="px-3 py-1.5">
                  <DayTrend trend={g.trend} />
                </td>
                <td className="space-x-1 whitespace-nowrap px-3 py-1.5 text-right">
                  {canTriage && (
                    <Button size="sm" onClick={() => setPending({ action: "release", group: g })}>
                      Release
                    </Button>
                  )}
                  {canPurge && (
                    <Button size="sm" variant="danger" onClick={() => setPending({ action: "purge", group: g })}>
                      Purge
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </DividedBody>
        </FramedTable>
      )}
      <Dialog
        open={pending !== null}
        onClose={() => setPending(null)}
        title={pending?.action === "purge" ? "Purge quarantined records" : "Release to triage"}
      >
        {pending && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              confirm();
            }}
            className="space-y-3 text-sm"
          >
            <p>
              {pending.action === "purge"
                ? `Removes the payload and raw envelope of ${pending.group.count.toLocaleString("en")} record${pending.group.count === 1 ? "" : "s"} for good; their identity, hash and timeline stay, and the audit trail keeps a masked copy.`
                : `Sends ${pending.group.count.toLocaleString("en")} record${pending.group.count === 1 ? "" : "s"} back to triage as pending.`}
            </p>
            <p className="truncate text-xs text-slate-500 dark:text-slate-400" title={pending.group.reasonGroup}>
              {pending.group.reasonGroup}
            </p>
            <label className="block">
              <span className="text-xs font-medium text-slate-700 dark:text-slate-300">Reason (audited)</span>
              <textarea
                required
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                rows={2}
                className="mt-1 w-full rounded border border-slate-300 dark:border-slate-600 p-1.5"
              />
            </label>
            <div className="flex justify-end gap-2">
              <Button onClick={() => setPending(null)}>Cancel</Button>
              <Button
                type="submit"
                variant={pending.action === "purge" ? "danger" : "primary"}
                disabled={!reason.trim() || release.isPending || purge.isPending}
              >
                {pending.action === "purge" ? "Purge" : "Release"}
              </Button>
            </div>
          </form>
        )}
      </Dialog>
    </div>
  );
}
