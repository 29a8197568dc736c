"use client";

import Link from "next/link";
import type { UseQueryResult } from "@tanstack/react-query";
import type { RuleJobView } from "@/lib/rules/rule-schemas";

const AREA_LABEL = (bound: string) =>
  bound === "more" ? "more than 50%" : bound === "unknown" ? "not measurable" : bound === "0" ? "none" : `≤ ${Number(bound) * 100}%`;

/** A dry run's counts: decided, skipped by reason, samples to open, and the area change of approvals. */
export function DryRunCounts({ query }: { query: UseQueryResult<RuleJobView> }) {
  if (query.isError) return <p className="text-xs text-red-700 dark:text-red-300">{query.error.message}</p>;
  const job = query.data;
  if (!job) return <p className="text-xs text-slate-500 dark:text-slate-400">{query.isFetching ? "Counting…" : "No dry run yet."}</p>;
  const areas = Object.entries(job.areaChanges);
  const origin = job.notReplayableToOrigin;
  return (
    <div className="space-y-1 text-sm" aria-live="polite" data-testid="dry-run-counts">
      <p>
        Of <strong>{job.total.toLocaleString("en")}</strong> pending record{job.total === 1 ? "" : "s"} in scope: would decide{" "}
        <strong data-testid="dry-run-decided">{job.decided.toLocaleString("en")}</strong>, skip{" "}
        <strong data-testid="dry-run-skipped">{job.skipped.toLocaleString("en")}</strong>
        {job.status === "running" && ` (counting: ${job.processed.toLocaleString("en")} looked at)`}
        {query.isFetching && job.status !== "running" && <span className="text-xs text-slate-500 dark:text-slate-400"> · updating…</span>}
      </p>
      {Object.entries(job.skippedReasons).length > 0 && (
        <ul className="list-inside list-disc text-xs text-slate-600 dark:text-slate-300">
          {Object.entries(job.skippedReasons).map(([reason, n]) => (
            <li key={reason}>
              {n.toLocaleString("en")} skipped: {reason}
            </li>
          ))}
        </ul>
      )}
      {areas.length > 0 && (
        <p className="text-xs text-slate-600 dark:text-slate-300">
          Area change of approvals: {areas.map(([bound, n]) => `${AREA_LABEL(bound)}: ${n}`).join(" · ")}
        </p>
      )}
      {origin && (
        <p
          data-testid="dry-run-not-replayable"
          className={origin.total > 0 ? "text-xs text-amber-800 dark:text-amber-200" : "text-xs text-slate-600 dark:text-slate-300"}
        >
          {origin.total === 0 ? (
            "Back to origin: every approval can go back."
          ) : (
            <>
              Back to origin: <strong>{origin.total.toLocaleString("en")}</strong> of the approvals cannot go back (
              {origin.noBrokerSource.toLocaleString("en")} not pulled from a broker source, {origin.refusedDestination.toLocaleString("en")}{" "}
              to a destination their source does not allow): approved all the same; the flow leaves out the first and fails the second when
              it sends them.
            </>
          )}
        </p>
      )}
      <p className="flex flex-wrap gap-x-2 text-xs">
        {job.samples.decided.map((id) => (
          <Link key={id} href={`/dead-letters/${id}`} className="text-sky-800 underline-offset-2 hover:underline dark:text-sky-200">
            #{id}
          </Link>
        ))}
        {job.samples.skipped.map((s) => (
          <Link
            key={s.id}
            href={`/dead-letters/${s.id}`}
            title={s.reason}
            className="text-amber-800 underline-offset-2 hover:underline dark:text-amber-200"
          >
            #{s.id} (skipped)
          </Link>
        ))}
      </p>
    </div>
  );
}
