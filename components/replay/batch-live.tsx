"use client";

import type { BatchView } from "@/lib/replay/batch/batch-schemas";
import { describeSink } from "@/lib/replay/sinks/registry";
import { BatchActions, type ReplayPermissions } from "./batch-actions";
import { BatchStatusBadge, ProgressBar } from "./badges";
import { fmt, formatDuration, formatTime } from "./format";
import { ItemsTable } from "./items-table";
import { isLive } from "@/lib/replay/batch/progress";
import { useBatch } from "./queries";
import { RateChart } from "./rate-chart";
import { DestinationsList } from "./destinations-list";
import { FedByRule } from "./fed-by-rule";
import { useHydrated } from "@/components/dead-letters/use-hydrated";

const OUTCOMES = ["applied", "deduped", "dropped", "poison", "failed", "cancelled", "pending"] as const;

/** /replays/[id]: live progress, polled about once a second until the batch finishes. */
export function BatchLive({ initial, renderedAt, perms }: { initial: BatchView; renderedAt: number; perms: ReplayPermissions }) {
  const { data: batch = initial, error } = useBatch(initial.id, initial, renderedAt);
  const live = isLive(batch);
  const hydrated = useHydrated();
  return (
    <div className="space-y-4" data-hydrated={hydrated}>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-lg font-semibold">Replay batch #{batch.id}</h1>
        <span data-testid="batch-status">
          <BatchStatusBadge status={batch.status} />
        </span>
        {batch.statusReason && <span className="text-sm text-slate-600 dark:text-slate-300">{batch.statusReason}</span>}
        <div className="ml-auto">
          <BatchActions batch={batch} perms={perms} />
        </div>
        {batch.rule && (
          <p data-testid="batch-rule" className="basis-full text-sm text-slate-600 dark:text-slate-300">
            Standing replay of <FedByRule rule={batch.rule} />: the records that version approves join this batch, approved by its four
            eyes.
          </p>
        )}
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          Live updates failed: {error.message}
        </p>
      )}
      {batch.destinations !== null && (
        <section
          aria-label="Destinations"
          className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm"
        >
          <DestinationsList
            destinations={batch.destinations}
            caption={`Where the messages go back to: ${batch.destinations.length} ${batch.destinations.length === 1 ? "destination" : "destinations"}`}
          />
        </section>
      )}
      {batch.status === "running" && batch.liveWorkers === 0 && (
        <p
          role="alert"
          data-testid="no-worker"
          className="rounded border border-amber-300 dark:border-amber-700 bg-amber-50 dark:bg-amber-950/40 p-2 text-sm text-amber-900 dark:text-amber-100"
        >
          No replay worker is running, so this batch is not progressing. <code>npm start</code> runs one with the app; start more with{" "}
          <code>npx redrive worker</code> against the same database.
        </p>
      )}

      <section
        aria-label="Progress"
        className="space-y-2 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3"
      >
        <ProgressBar total={batch.total} counts={batch.counts} />
        <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4 lg:grid-cols-7">
          {OUTCOMES.map((o) => (
            <div key={o}>
              <dt
                className="text-xs uppercase tracking-wide text-slate-500 dark:text-slate-400"
                title={
                  o === "failed"
                    ? "Submissions that failed and wait for their retry (items list: outcome retry); after the attempt budget they become poison"
                    : undefined
                }
              >
                {o === "failed" ? "failed, retrying" : o}
              </dt>
              <dd className="tabular-nums" data-testid={`count-${o}`}>
                {fmt(batch.counts[o])}
              </dd>
            </div>
          ))}
        </dl>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-1 border-t border-slate-100 dark:border-slate-800 pt-2 text-sm sm:grid-cols-4">
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Configured rate</dt>
            <dd>
              {fmt(batch.ratePerSecond)}/s{batch.throttle < 1 && ` × ${batch.throttle.toFixed(2)} (sink asked to slow down)`}
            </dd>
          </div>
          {batch.achievedRate === null && batch.averageRate !== null ? (
            <div>
              <dt
                className="text-xs text-slate-500 dark:text-slate-400"
                title="Submissions per second from the first to the last, pauses included"
              >
                Achieved (whole run)
              </dt>
              <dd>{batch.averageRate.toFixed(1)}/s</dd>
            </div>
          ) : (
            <div>
              <dt className="text-xs text-slate-500 dark:text-slate-400">Achieved (last 10 s)</dt>
              <dd data-testid="achieved-rate">
                {batch.achievedRate !== null ? `${batch.achievedRate.toFixed(1)}/s` : batch.status === "paused" ? "— (paused)" : "—"}
              </dd>
            </div>
          )}
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">ETA</dt>
            <dd>{batch.eta ? `${formatTime(batch.eta).slice(11)} (in ${formatDuration(batch.etaSeconds)})` : "—"}</dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Total</dt>
            <dd>
              {fmt(batch.total)} {batch.total === 1 ? "record" : "records"}
            </dd>
          </div>
        </dl>
      </section>

      <section aria-label="Rate" className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3">
        <RateChart id={batch.id} live={live} configured={batch.ratePerSecond} throttle={batch.throttle} />
      </section>

      <section
        aria-label="Configuration"
        className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm"
      >
        <dl className="grid grid-cols-1 gap-x-6 gap-y-1 sm:grid-cols-3">
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Sink</dt>
            <dd>{describeSink(batch.sink, "detail")}</dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Repair (spatial)</dt>
            <dd>
              {batch.repair.method}, {batch.repair.policy}
            </dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Limits</dt>
            <dd>
              page {batch.pageSize}; poison after {batch.maxReplays} replays or {batch.maxAttempts} attempts; pause above{" "}
              {Math.round(batch.failureThreshold * 100)}% failures
            </dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Created</dt>
            <dd>
              {formatTime(batch.createdAt)} by {batch.createdBy.email ?? batch.createdBy.id}
            </dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Approved</dt>
            <dd data-testid="batch-approved">
              {batch.approvedBy ? `${formatTime(batch.approvedAt)} by ${batch.approvedBy.email ?? batch.approvedBy.id}` : "—"}
              {batch.singleApproverLimit !== null &&
                ` — approved by one supervisor (admin allows batches of ≤ ${batch.singleApproverLimit.toLocaleString("en")})`}
            </dd>
          </div>
          <div>
            <dt className="text-xs text-slate-500 dark:text-slate-400">Started / finished</dt>
            <dd>
              {formatTime(batch.startedAt)} / {formatTime(batch.finishedAt)}
            </dd>
          </div>
        </dl>
      </section>

      <ItemsTable id={batch.id} live={live} />
    </div>
  );
}
