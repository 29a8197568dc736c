"use client";

import Link from "next/link";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { HttpError } from "@/lib/api/client";
import { filterToParams } from "@/lib/dead-letters/filter-url";
import type { ListFilter } from "@/lib/dead-letters/filters";
import type { BulkBody, BulkResult } from "@/lib/dead-letters/contract/bulk";
import { ReasonDialog } from "../detail/quarantine-dialog";
import { useBulkAction } from "../use-dead-letter-queries";
import { countOf } from "@/lib/vocabulary/plural";

// A decision on a selection: the ticked rows, or every record matching the filter — sent as the filter, so the
// server applies it in pages without the browser loading N rows (as a job, answered 202, whose progress
// BulkJobProgress follows). The user confirms the exact count, and the server refuses (409) when the count
// changed in between.

export type Selection = { mode: "ids"; ids: Set<string> } | { mode: "filter"; filter: ListFilter; count: number; exact: boolean };

type Action = BulkBody["action"];
const VERB: Record<Action, string> = { approve: "Approve", quarantine: "Quarantine", reopen: "Reopen" };
const DONE: Record<Action, string> = { approve: "Approved", quarantine: "Quarantined", reopen: "Reopened" };

const records = (n: number) => `${n.toLocaleString("en")} record${n === 1 ? "" : "s"}`;

export function selectionSize(s: Selection): number {
  return s.mode === "ids" ? s.ids.size : s.count;
}

function summarize(result: BulkResult, action: Action): string {
  const reasons = Object.entries(result.skippedReasons)
    .map(([why, n]) => `${n.toLocaleString("en")} × ${why}`)
    .join("; ");
  return `${DONE[action]} ${result.updated.toLocaleString("en")} of ${result.matched.toLocaleString("en")}${result.skipped ? ` · skipped ${result.skipped.toLocaleString("en")}${reasons ? ` (${reasons})` : ""}` : ""}${warningText(result.warnings)}`;
}

/** How many of a dry run's approvals carry a repair that needs acknowledging (lib/dead-letters/triage/repair-warnings.ts). */
function ackCount(warnings: Record<string, number> | undefined): number {
  return Object.entries(warnings ?? {}).reduce((n, [why, k]) => (why.startsWith("have a repair that changes") ? n + k : n), 0);
}

/** " · 35 × still fails the tap schema: …" for a bulk result's warnings (approved, but worth a second look). */
function warningText(warnings: Record<string, number> | undefined): string {
  const parts = Object.entries(warnings ?? {}).map(([why, n]) => `${n.toLocaleString("en")} × ${why}`);
  return parts.length ? ` · ${parts.join("; ")}` : "";
}

/** Ids travel in the URL of /replays/new; past this many, replay the filter instead. */
const MAX_REPLAY_IDS_IN_URL = 1000;

/** The replay page for a selection: its ids, or its filter (the page leaves out records that are not approved). */
function replayHref(selection: Selection): string | null {
  if (selection.mode === "filter") return `/replays/new?${filterToParams(selection.filter)}`;
  if (selection.ids.size > MAX_REPLAY_IDS_IN_URL) return null;
  return `/replays/new?ids=${[...selection.ids].join(",")}`;
}

export function BulkBar({
  selection,
  canReplay = false,
  onClear,
  onJob,
}: {
  selection: Selection;
  canReplay?: boolean;
  onClear: () => void;
  onJob: (jobId: string) => void;
}) {
  const bulk = useBulkAction();
  const [pending, setPending] = useState<{ action: Action; count: number; warnings?: Record<string, number> } | null>(null);
  const size = selectionSize(selection);
  const replay = canReplay ? replayHref(selection) : null;
  const target = selection.mode === "ids" ? { ids: [...selection.ids] } : { filter: selection.filter };

  async function ask(action: Action) {
    let count = size;
    let warnings: Record<string, number> | undefined;
    // A dry run when the facet count was an estimate (confirm the exact number), and before any approval: it
    // says how many taps still fail their schema, which the replay would drop.
    if ((selection.mode === "filter" && !selection.exact) || action === "approve") {
      const dry = await bulk
        .mutateAsync({ action, ...target, dryRun: true, ...(action === "quarantine" ? { reason: "(count)" } : {}) })
        .catch(() => null);
      if (!dry || "job" in dry) return;
      count = dry.matched;
      warnings = dry.warnings;
    }
    setPending({ action, count, ...(warnings ? { warnings } : {}) });
  }

  function run(action: Action, count: number, reason?: string) {
    bulk.mutate(
      { action, ...target, expectedCount: count, ...(reason ? { reason } : {}) },
      {
        onSuccess: (result) => {
          setPending(null);
          // A filter runs as a job on the server: its progress is followed outside this bar (it outlives the selection).
          if ("job" in result) onJob(result.job.id);
          else if (Object.keys(result.warnings ?? {}).length > 0) toast.warning(summarize(result, action));
          else toast.success(summarize(result, action));
          onClear();
        },
        onError: (err) => {
          const matched = err instanceof HttpError ? (err.body as { error?: { matched?: number } } | null)?.error?.matched : undefined;
          if (matched !== undefined) setPending({ action, count: matched });
        },
      },
    );
  }

  const what =
    selection.mode === "ids"
      ? `${size.toLocaleString("en")} selected record${size === 1 ? "" : "s"}`
      : size === 1
        ? "the 1 record matching the filters"
        : `all ${countOf(size, "record")} matching the filters`;
  return (
    <div
      role="toolbar"
      aria-label="Bulk actions"
      className="flex flex-wrap items-center gap-2 rounded border border-amber-300 dark:border-amber-700 bg-amber-50 dark:bg-amber-950/40 px-3 py-1.5 text-sm"
    >
      <span className="font-medium">
        {selection.mode === "filter" && !selection.exact ? "≈" : ""}
        {what}
      </span>
      <Button size="sm" variant="approve" disabled={bulk.isPending} onClick={() => void ask("approve")}>
        Approve…
      </Button>
      <Button size="sm" variant="danger" disabled={bulk.isPending} onClick={() => void ask("quarantine")}>
        Quarantine…
      </Button>
      <Button size="sm" disabled={bulk.isPending} onClick={() => void ask("reopen")}>
        Reopen…
      </Button>
      {replay && (
        <Link
          href={replay}
          className="rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-0.5 text-sm font-medium text-slate-800 dark:text-slate-200 hover:bg-slate-50 dark:hover:bg-slate-800"
          title="A replay batch of the approved records in this selection"
        >
          Replay…
        </Link>
      )}
      <Button size="sm" variant="ghost" onClick={onClear}>
        Clear selection
      </Button>
      {pending && pending.action === "quarantine" ? (
        <ReasonDialog
          open
          title={`Quarantine ${records(pending.count)}`}
          confirmLabel={`Quarantine ${pending.count.toLocaleString("en")}`}
          busy={bulk.isPending}
          onCancel={() => setPending(null)}
          onConfirm={(reason) => run("quarantine", pending.count, reason)}
        >
          <p className="text-sm text-slate-700 dark:text-slate-300">
            Quarantine {what.replace(/^all [\d,]+/, `all ${pending.count.toLocaleString("en")}`)}? Records that cannot be quarantined
            (already quarantined, replayed) are skipped and counted.
          </p>
        </ReasonDialog>
      ) : pending ? (
        <Dialog open title={`${VERB[pending.action]} ${records(pending.count)}`} onClose={() => setPending(null)}>
          <p className="text-sm text-slate-700 dark:text-slate-300">
            {VERB[pending.action]} {pending.count.toLocaleString("en")} record{pending.count === 1 ? "" : "s"}? Records the state machine
            refuses (poison, already decided) are skipped and counted.
          </p>
          {Object.entries(pending.warnings ?? {}).map(([why, n]) => (
            <p
              key={why}
              role="alert"
              className="rounded border border-amber-300 dark:border-amber-700 bg-amber-50 dark:bg-amber-950/40 p-2 text-sm text-amber-900 dark:text-amber-100"
            >
              {n.toLocaleString("en")} of them{" "}
              {why
                .replace(/^still fails/, n === 1 ? "still fails" : "still fail")
                .replace(
                  "the replay will drop it unless it is edited",
                  n === 1 ? "the replay will drop it unless it is edited" : "the replay will drop them unless they are edited",
                )}
              .
            </p>
          ))}
          <div className="flex justify-end gap-2">
            <Button onClick={() => setPending(null)}>Cancel</Button>
            <Button
              variant={pending.action === "approve" ? "approve" : "primary"}
              disabled={bulk.isPending}
              onClick={() => run(pending.action, pending.count)}
            >
              {VERB[pending.action]} {pending.count.toLocaleString("en")}
              {ackCount(pending.warnings) > 0 ? `, acknowledging ${ackCount(pending.warnings).toLocaleString("en")} repairs` : ""}
            </Button>
          </div>
        </Dialog>
      ) : null}
    </div>
  );
}
