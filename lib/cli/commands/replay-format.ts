import { progressText } from "../../replay/batch/progress";
import { describeSink } from "../../replay/sinks/registry";
import type { BatchView } from "../../replay/batch/batch-schemas";

// Plain-text rendering of batches for the terminal.

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "—";
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

export function formatBatch(b: BatchView, opts: { oneLine?: boolean } = {}): string {
  const c = b.counts;
  if (opts.oneLine) {
    return [
      b.id.padStart(6),
      b.status.padEnd(9),
      progressText(b.total, c).padEnd(22),
      `${b.ratePerSecond}/s`.padEnd(9),
      b.sink.type.padEnd(6),
      `${b.createdAt.slice(0, 19)}Z`,
      b.statusReason ?? "",
    ]
      .join(" ")
      .trimEnd();
  }
  const rate =
    b.achievedRate !== null
      ? `${b.achievedRate.toFixed(1)}/s`
      : b.averageRate !== null
        ? `${b.averageRate.toFixed(1)}/s over the whole run`
        : "—";
  return [
    `batch ${b.id}: ${b.status}${b.statusReason ? ` (${b.statusReason})` : ""}`,
    ...(b.rule ? [`  standing replay of rule ${b.rule.name} v${b.rule.version} (rule ${b.rule.id})`] : []),
    `  sink ${describeSink(b.sink, "cli")}; rate ${b.ratePerSecond}/s` +
      `${b.throttle < 1 ? ` × ${b.throttle.toFixed(2)} (throttled by the sink)` : ""}; achieved ${rate}`,
    `  ${progressText(b.total, c)} — applied ${c.applied}, deduped ${c.deduped}, dropped ${c.dropped}, poison ${c.poison}, ` +
      `failed ${c.failed}, cancelled ${c.cancelled}; pending ${c.pending}`,
    `  created ${b.createdAt} by ${b.createdBy.email ?? b.createdBy.id}` +
      `${b.approvedBy ? `; approved by ${b.approvedBy.email ?? b.approvedBy.id}` : ""}` +
      `${b.eta ? `; ETA ${b.eta}` : ""}${b.finishedAt ? `; finished ${b.finishedAt}` : ""}`,
    ...(b.status === "running" && b.liveWorkers === 0
      ? ["  no replay worker is running: the batch will not progress until one is (`npx redrive worker`)"]
      : []),
  ].join("\n");
}
