import { Badge, type Tone } from "@/components/ui/badge";
import type { OutcomeCounts } from "@/lib/replay/batch/batch-schemas";

const BATCH_TONE: Record<string, Tone> = {
  draft: "slate",
  approved: "blue",
  running: "green",
  paused: "amber",
  completed: "violet",
  cancelled: "slate",
  failed: "red",
};

const ITEM_TONE: Record<string, Tone> = {
  pending: "slate",
  running: "blue",
  retry: "amber",
  applied: "green",
  deduped: "violet",
  dropped: "amber",
  poison: "red",
  failed: "red",
  cancelled: "slate",
};

export function BatchStatusBadge({ status, title }: { status: string; title?: string | null }) {
  return (
    <Badge tone={BATCH_TONE[status] ?? "slate"} title={title ?? undefined}>
      {status}
    </Badge>
  );
}

export function ItemStatusBadge({ status }: { status: string }) {
  return <Badge tone={ITEM_TONE[status] ?? "slate"}>{status}</Badge>;
}

/** Share of the batch per outcome as one stacked bar. */
export function ProgressBar({ total, counts }: { total: number; counts: OutcomeCounts }) {
  const parts: [string, number, string][] = [
    ["applied", counts.applied, "bg-emerald-500"],
    ["deduped", counts.deduped, "bg-violet-400"],
    ["dropped", counts.dropped, "bg-amber-400"],
    ["poison", counts.poison, "bg-red-500"],
    ["failed", counts.failed, "bg-red-300"],
    ["cancelled", counts.cancelled, "bg-slate-300 dark:bg-slate-600"],
  ];
  const done = parts.reduce((s, [, n]) => s + n, 0);
  return (
    <div
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-label={`${done} of ${total} finished`}
      className="flex h-2 w-full overflow-hidden rounded bg-slate-100 dark:bg-slate-800"
    >
      {total > 0 &&
        parts.map(([name, n, color]) =>
          n > 0 ? <div key={name} className={color} style={{ width: `${(n / total) * 100}%` }} title={`${name}: ${n}`} /> : null,
        )}
    </div>
  );
}
