"use client";

import { poll } from "@/components/session-ended";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import dynamic from "next/dynamic";
import { Badge } from "@/components/ui/badge";
import { DividedBody } from "@/components/ui/table";
import { fetchJson } from "@/lib/api/client";
import type { Overview } from "@/lib/ops/overview";
import type { SeriesPoint } from "@/lib/ops/series";
import { forensicsKeys } from "./queries";

// The health overview: where the DLQ stands (counts, oldest record, top reasons), where it is heading (arrival
// and poison rates), what is being done about it (replays) and what is alarming (alerts). Rendered on the
// server first, then refreshed every 30 s.

// recharts is most of this page's script: loaded once the bars are drawn, in the browser (a chart sized to its
// container has nothing to draw on the server), so the page is interactive before it arrives.
const ArrivalsBars = dynamic(() => import("./arrivals-bars").then((m) => m.ArrivalsBars), {
  ssr: false,
  loading: () => <div className="h-full animate-pulse rounded bg-slate-100 dark:bg-slate-800" />,
});

function Stat({ label, value, hint, tone }: { label: string; value: string; hint?: string; tone?: "red" }) {
  return (
    <div className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3">
      <p className="text-xs uppercase tracking-wide text-slate-500 dark:text-slate-400">{label}</p>
      <p
        className={`text-2xl font-semibold tabular-nums ${tone === "red" ? "text-red-700 dark:text-red-300" : "text-slate-900 dark:text-slate-100"}`}
      >
        {value}
      </p>
      {hint && <p className="text-xs text-slate-500 dark:text-slate-400">{hint}</p>}
    </div>
  );
}

function Counts({ title, counts }: { title: string; counts: Record<string, number> }) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return (
    <section aria-label={title} className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3">
      <h2 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{title}</h2>
      <ul className="space-y-0.5 text-sm">
        {entries.map(([k, n]) => (
          <li key={k} className="flex justify-between">
            <span>{k.replace("_", " ")}</span>
            <span className="tabular-nums">{n.toLocaleString("en")}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function RateChart({ title, data, unit }: { title: string; data: SeriesPoint[]; unit: "hour" | "day" }) {
  return (
    <section aria-label={title} className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3">
      <h2 className="mb-2 text-sm font-semibold">{title}</h2>
      <div className="h-48">
        <ArrivalsBars data={data} unit={unit} />
      </div>
    </section>
  );
}

function age(hours: number): string {
  if (hours < 1) return `${Math.round(hours * 60)} min`;
  if (hours < 48) return `${hours.toFixed(1)} h`;
  return `${(hours / 24).toFixed(1)} days`;
}

export function OverviewDashboard({ initial, renderedAt }: { initial: Overview; renderedAt: number }) {
  const { data } = useQuery({
    queryKey: forensicsKeys.overview(),
    queryFn: ({ signal }) => fetchJson<Overview>("/api/overview", { signal }),
    initialData: initial,
    // when the server read it: a page restored by Back refetches (see useDeadLetterList)
    initialDataUpdatedAt: renderedAt,
    refetchInterval: () => poll(30_000),
  });
  const o = data;
  const firing = o.alerts.filter((a) => a.firing);
  return (
    <div className="space-y-4">
      {firing.length > 0 && (
        <section
          role="alert"
          aria-label="Firing alerts"
          className="rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 p-3 text-sm text-red-900 dark:text-red-100"
        >
          <p className="font-semibold">{firing.length === 1 ? "1 alert firing" : `${firing.length} alerts firing`}</p>
          <ul className="list-disc pl-5">
            {firing.map((a) => (
              // The message holds the figures measured when the rule fired; the cards below are live.
              <li key={a.id}>
                {a.team && <span className="font-medium">{a.team}: </span>}
                {a.firing?.message}{" "}
                <span className="text-red-700 dark:text-red-300">
                  — firing since {a.firing?.firedAt.replace("T", " ").slice(0, 16)} UTC (figures as measured then)
                </span>
              </li>
            ))}
          </ul>
          <Link href="/alerts" className="underline">
            Alert rules
          </Link>
        </section>
      )}
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
        <Stat label="Unresolved" value={o.unresolved.toLocaleString("en")} hint="pending, approved or quarantined" />
        <Stat
          label="Quarantined"
          value={(o.byStatus.quarantined ?? 0).toLocaleString("en")}
          hint="held for a human (poison, or by hand)"
          tone={(o.byStatus.quarantined ?? 0) > 0 ? "red" : undefined}
        />
        <Stat
          label="Oldest unresolved"
          value={o.oldest ? age(o.oldest.ageHours) : "—"}
          hint={o.oldest ? `first seen ${o.oldest.firstSeenAt.slice(0, 16).replace("T", " ")} UTC` : "nothing waiting"}
        />
        <Stat label="Total records" value={o.total.toLocaleString("en")} hint="ever stored" />
      </div>
      {o.oldest && (
        <p className="text-xs text-slate-500 dark:text-slate-400">
          Oldest:{" "}
          <Link className="underline" href={`/lookup/timeline/${o.oldest.id}`}>
            record {o.oldest.id}
          </Link>
        </p>
      )}
      <div className="grid gap-3 lg:grid-cols-2">
        <RateChart title="First seen per hour (UTC), last 48 hours" data={o.hourly} unit="hour" />
        <RateChart title="First seen per UTC day, last 30 days" data={o.daily} unit="day" />
      </div>
      <div className="grid gap-3 md:grid-cols-4">
        <Counts title="By kind" counts={o.byKind} />
        <Counts title="By status" counts={o.byStatus} />
        <Counts title="By class" counts={o.byClass} />
        <section
          aria-label="Replays"
          className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm"
        >
          <h2 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Replays in progress</h2>
          {o.replays.length === 0 ? (
            <p className="text-slate-500 dark:text-slate-400">None running.</p>
          ) : (
            <ul className="space-y-1">
              {o.replays.map((r) => (
                <li key={r.id}>
                  <Link href={`/replays/${r.id}`} className="underline">
                    Batch {r.id}
                  </Link>{" "}
                  <Badge tone={r.status === "running" ? "green" : "amber"}>{r.status}</Badge>
                  <span className="block text-xs text-slate-500 dark:text-slate-400 tabular-nums">
                    {r.done.toLocaleString("en")} / {r.total.toLocaleString("en")} · {r.achievedPerSecond.toFixed(1)}/s of {r.ratePerSecond}
                    /s
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <section aria-label="Top reasons" className="rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3">
        <h2 className="mb-2 text-sm font-semibold">Top reasons (unresolved)</h2>
        <table className="w-full text-left text-sm">
          <DividedBody>
            {o.topReasons.map((r) => (
              <tr key={`${r.kind}:${r.reasonGroup}`}>
                <td className="py-1 pr-2 text-xs text-slate-500 dark:text-slate-400">{r.kind}</td>
                <td className="max-w-3xl truncate py-1 max-sm:whitespace-normal max-sm:wrap-anywhere" title={r.reasonGroup}>
                  <Link className="hover:underline" href={`/dead-letters?reason=${encodeURIComponent(r.reasonGroup)}&kind=${r.kind}`}>
                    {r.reasonGroup}
                  </Link>
                </td>
                <td className="py-1 text-right tabular-nums">{r.count.toLocaleString("en")}</td>
              </tr>
            ))}
          </DividedBody>
        </table>
      </section>
    </div>
  );
}
