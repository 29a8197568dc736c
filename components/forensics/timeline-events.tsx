import { Badge, type Tone } from "@/components/ui/badge";
import type { TimelineEvent, TimelineKind } from "@/lib/forensics/forensics-schemas";

// A record's timeline as an ordered list: when, what (one sentence), who, and the structured before/after/diff
// behind a disclosure. Server-renderable (no state).

const TONE: Record<TimelineKind, Tone> = {
  capture: "slate",
  failure: "red",
  edit: "violet",
  repair: "violet",
  decision: "blue",
  replay: "amber",
  settlement: "green",
  batch: "slate",
  purge: "red",
  retention: "slate",
  reveal: "amber",
  note: "blue",
  other: "slate",
};

function Detail({ e }: { e: TimelineEvent }) {
  const parts = (
    [
      ["before", e.before],
      ["after", e.after],
      ["diff", e.diff],
    ] as const
  ).filter(([, v]) => v !== null && v !== undefined);
  if (parts.length === 0) return null;
  return (
    <details className="mt-1">
      <summary className="cursor-pointer text-xs text-slate-500 dark:text-slate-400">details</summary>
      <div className="mt-1 grid gap-2 md:grid-cols-3">
        {parts.map(([label, value]) => (
          <div key={label}>
            <p className="text-xs font-medium text-slate-500 dark:text-slate-400">{label}</p>
            <pre className="max-h-64 overflow-auto rounded bg-slate-50 dark:bg-slate-800 p-2 text-xs">{JSON.stringify(value, null, 2)}</pre>
          </div>
        ))}
      </div>
      {e.hash && (
        <p className="mt-1 font-mono text-[10px] text-slate-500 dark:text-slate-400">
          audit #{e.id} · {e.hash}
        </p>
      )}
    </details>
  );
}

export function TimelineEvents({ events }: { events: TimelineEvent[] }) {
  return (
    <ol aria-label="Timeline" className="relative space-y-3 border-l border-slate-200 dark:border-slate-700 pl-4">
      {events.map((e) => (
        <li key={e.id} className="relative">
          <span
            className="absolute -left-[21px] top-1.5 h-2.5 w-2.5 rounded-full border-2 border-white dark:border-slate-900 bg-slate-400 dark:bg-slate-500"
            aria-hidden
          />
          <div className="flex flex-wrap items-baseline gap-x-2">
            <time dateTime={e.at} className="whitespace-nowrap font-mono text-xs text-slate-500 dark:text-slate-400">
              {e.at.replace("T", " ").slice(0, 23)} UTC
            </time>
            <Badge tone={TONE[e.kind]}>{e.kind}</Badge>
            <span className="text-sm">{e.summary}</span>
          </div>
          <Detail e={e} />
        </li>
      ))}
    </ol>
  );
}
