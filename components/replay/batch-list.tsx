"use client";

import Link from "next/link";
import { describeSink } from "@/lib/replay/sinks/registry";
import { EmptyNotice } from "@/components/ui/empty-notice";
import { ColumnHeaders, DividedBody, FramedTable, type Column } from "@/components/ui/table";
import type { BatchView } from "@/lib/replay/batch/batch-schemas";
import { progressText } from "@/lib/replay/batch/progress";
import { BatchStatusBadge, ProgressBar } from "./badges";
import { fmt, formatTime } from "./format";
import { useBatches } from "./queries";
import { FedByRule } from "./fed-by-rule";

const COLUMNS: (string | Column)[] = [
  "Batch",
  "Status",
  "Sink",
  { label: "Progress", className: "w-64" },
  { label: "Rate", align: "right" },
  "Created",
];

/** The batches table on /replays, refreshed every 2 s. */
export function BatchList({ initial, renderedAt, canManage }: { initial: BatchView[]; renderedAt: number; canManage: boolean }) {
  const { data: batches = [], error } = useBatches(initial, renderedAt);
  if (error)
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        Could not load batches: {error.message}
      </p>
    );
  if (batches.length === 0) {
    return (
      <EmptyNotice>
        No replay batches yet.{" "}
        {canManage
          ? "Select approved records on the dead-letter list and choose “Replay”, or start from “New batch”."
          : "Supervisors create them from approved records; they will show here with their live progress."}
      </EmptyNotice>
    );
  }
  return (
    <FramedTable>
      <ColumnHeaders columns={COLUMNS} />
      <DividedBody>
        {batches.map((b) => (
          <tr key={b.id} className="hover:bg-slate-50 dark:hover:bg-slate-800">
            <td className="px-3 py-1.5">
              <Link href={`/replays/${b.id}`} className="font-medium underline-offset-2 hover:underline">
                #{b.id}
              </Link>
              {b.rule && (
                <span data-testid="batch-rule" className="block text-xs text-slate-500 dark:text-slate-400">
                  standing: <FedByRule rule={b.rule} />
                </span>
              )}
            </td>
            <td className="px-3 py-1.5">
              <BatchStatusBadge status={b.status} title={b.statusReason} />
            </td>
            <td className="px-3 py-1.5 text-slate-600 dark:text-slate-300">{describeSink(b.sink, "short")}</td>
            <td className="px-3 py-1.5">
              <ProgressBar total={b.total} counts={b.counts} />
              <span className="text-xs tabular-nums text-slate-500 dark:text-slate-400">{progressText(b.total, b.counts, fmt)}</span>
            </td>
            <td className="px-3 py-1.5 text-right tabular-nums">
              {b.achievedRate !== null && b.status === "running" ? `${b.achievedRate.toFixed(1)} of ` : ""}
              {fmt(b.ratePerSecond)}/s
            </td>
            <td className="whitespace-nowrap px-3 py-1.5 text-slate-600 dark:text-slate-300">
              <time dateTime={b.createdAt}>{formatTime(b.createdAt)}</time> · {b.createdBy.email ?? b.createdBy.id}
            </td>
          </tr>
        ))}
      </DividedBody>
    </FramedTable>
  );
}
