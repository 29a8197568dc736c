"use client";

import dynamic from "next/dynamic";
import { useRateSeries } from "./queries";

// recharts is most of the batch page's script: loaded when there is a line to draw, in the browser only (the
// chart sizes itself to its container), so the page is interactive before it arrives.
const RatePlot = dynamic(() => import("./rate-plot").then((m) => m.RatePlot), {
  ssr: false,
  loading: () => <div className="h-full animate-pulse rounded bg-slate-100 dark:bg-slate-800" />,
});

/**
 * Submissions per second against the configured rate, for the last five minutes of the batch; while a sink's
 * 429/503 holds the batch below its rate (`throttle` < 1), the lowered limit too.
 */
export function RateChart({ id, live, configured, throttle = 1 }: { id: string; live: boolean; configured: number; throttle?: number }) {
  const { data, error } = useRateSeries(id, live);
  if (error)
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        Could not load the rate: {error.message}
      </p>
    );
  const points = data?.points ?? [];
  if (points.length === 0) return <p className="py-8 text-center text-sm text-slate-500 dark:text-slate-400">No submissions yet.</p>;
  // A ceiling far above what was achieved (an unpaced drain at 1,000,000/s) would flatten the line at zero: the
  // axis then follows what was achieved, and the caption names the ceiling instead of drawing it.
  const peak = points.reduce((m, p) => Math.max(m, p.count), 0);
  const drawCeiling = configured <= Math.max(peak, 1) * 3;
  return (
    <figure aria-label="Achieved submissions per second against the configured rate">
      <div className="h-56 w-full">
        <RatePlot points={points} configured={configured} throttle={throttle} drawCeiling={drawCeiling} />
      </div>
      <figcaption className="text-xs text-slate-500 dark:text-slate-400">
        Records submitted per second in the last 5 minutes of the batch (or since it started), times in UTC (solid green);{" "}
        {drawCeiling ? (
          <>
            dashed: the configured rate, the limit for all workers together
            {throttle < 1 ? "; dotted: the lower limit while the sink asks to slow down" : ""}.
          </>
        ) : (
          <>the configured rate ({configured.toLocaleString("en")}/s) is far above what the workers reached and is not drawn.</>
        )}
      </figcaption>
    </figure>
  );
}
