"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import type { BulkJob } from "@/lib/dead-letters/contract/bulk";
import { invalidateAfterBulk, useBulkJob, useCancelBulkJob } from "../use-dead-letter-queries";

// A bulk decision on a filter runs on the server as a job (it may be 100k records): its progress, polled, with a
// way to stop it. It stays on screen when the selection or the filter changes — the job does not depend on them.

const DOING: Record<BulkJob["action"], string> = { approve: "Approving", quarantine: "Quarantining", reopen: "Reopening" };
const DONE: Record<BulkJob["action"], string> = { approve: "Approved", quarantine: "Quarantined", reopen: "Reopened" };
const n = (v: number) => v.toLocaleString("en");

function summary(job: BulkJob): string {
  const reasons = Object.entries(job.skippedReasons)
    .map(([why, c]) => `${n(c)} × ${why}`)
    .join("; ");
  const warnings = Object.entries(job.warnings ?? {})
    .map(([why, c]) => `${n(c)} × ${why}`)
    .join("; ");
  return `${DONE[job.action]} ${n(job.updated)} of ${n(job.matched)}${job.skipped ? ` · skipped ${n(job.skipped)}${reasons ? ` (${reasons})` : ""}` : ""}${warnings ? ` · ${warnings}` : ""}`;
}

export function BulkJobProgress({ jobId, onDone }: { jobId: string; onDone: () => void }) {
  const qc = useQueryClient();
  const job = useBulkJob(jobId);
  const cancel = useCancelBulkJob(jobId);
  const reported = useRef(false);
  const data = job.data;

  useEffect(() => {
    if (!data || data.status === "running" || reported.current) return;
    reported.current = true;
    if (data.status === "completed" && Object.keys(data.warnings ?? {}).length > 0) toast.warning(summary(data));
    else if (data.status === "completed") toast.success(summary(data));
    else if (data.status === "cancelled") toast.info(`Stopped: ${summary(data)}`);
    else toast.error(`The bulk job stopped: ${data.error ?? "unknown error"}`, { description: summary(data) });
    invalidateAfterBulk(qc);
    onDone();
  }, [data, qc, onDone]);

  if (job.isError) {
    return (
      <p
        role="alert"
        className="rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 px-3 py-1.5 text-sm text-red-800 dark:text-red-200"
      >
        Could not follow bulk job {jobId}: {job.error.message}
      </p>
    );
  }
  const total = Math.max(data?.matched ?? 0, data?.processed ?? 0, 1);
  const done = data?.processed ?? 0;
  return (
    <div
      role="status"
      aria-label="Bulk job"
      className="flex flex-wrap items-center gap-3 rounded border border-sky-300 dark:border-sky-700 bg-sky-50 dark:bg-sky-950/40 px-3 py-1.5 text-sm"
    >
      <span className="font-medium">
        {data ? DOING[data.action] : "Starting"} {n(done)} of {n(data?.matched ?? 0)}…
      </span>
      <div
        role="progressbar"
        aria-label="Bulk job progress"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        className="h-2 w-48 overflow-hidden rounded bg-sky-100 dark:bg-sky-900/50"
      >
        <div className="h-full bg-sky-600 transition-[width]" style={{ width: `${Math.min(100, (100 * done) / total)}%` }} />
      </div>
      {data && (
        <span className="text-xs text-slate-600 dark:text-slate-300">
          {n(data.updated)} changed · {n(data.skipped)} skipped
        </span>
      )}
      <Button size="sm" variant="ghost" disabled={!data || data.cancelRequested || cancel.isPending} onClick={() => cancel.mutate()}>
        {data?.cancelRequested ? "Stopping…" : "Stop"}
      </Button>
    </div>
  );
}
