"use client";

import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { chartColours } from "@/components/theme/chart-colours";
import { useDarkTheme } from "@/components/theme/use-dark-theme";
import { compactNumber as compact } from "@/components/ui/compact-number";
import { useRateSeries } from "./queries";

/** The axis's clock, UTC as every time shown (the chart's caption says so). */
const clock = (t: number) => new Date(t * 1000).toISOString().slice(11, 19);

/**
 * Submissions per second against the configured rate, for the last five minutes of the batch; while a sink's
 * 429/503 holds the batch below its rate (`throttle` < 1), the lowered limit too.
 */
export function RateChart({ id, live, configured, throttle = 1 }: { id: string; live: boolean; configured: number; throttle?: number }) {
  const { data, error } = useRateSeries(id, live);
  const c = chartColours(useDarkTheme());
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
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke={c.grid} />
            <XAxis dataKey="t" tickFormatter={clock} minTickGap={40} fontSize={11} stroke={c.axis} tick={{ fill: c.axis }} />
            <YAxis
              allowDecimals={false}
              fontSize={11}
              stroke={c.axis}
              tick={{ fill: c.axis }}
              width={48}
              tickFormatter={compact}
              domain={[0, (max: number) => (drawCeiling ? Math.max(max, configured) : Math.max(max, 1)) * 1.1]}
            />
            <Tooltip
              contentStyle={c.tooltip}
              labelFormatter={(t) => `${clock(Number(t))} UTC`}
              formatter={(v) => [`${v}/s`, "submitted"]}
            />
            {drawCeiling && (
              <ReferenceLine
                y={configured}
                stroke={c.ink}
                strokeDasharray="6 3"
                label={{ value: `configured ${compact(configured)}/s`, fontSize: 11, fill: c.ink, position: "insideTopRight" }}
              />
            )}
            {throttle < 1 && drawCeiling && (
              <ReferenceLine
                y={configured * throttle}
                stroke={c.warn}
                strokeDasharray="2 3"
                label={{
                  value: `slowed to ${(configured * throttle).toFixed(1)}/s`,
                  fontSize: 11,
                  fill: c.warn,
                  position: "insideBottomRight",
                }}
              />
            )}
            <Line type="stepAfter" dataKey="count" stroke={c.good} dot={false} isAnimationActive={false} name="submitted" />
          </LineChart>
        </ResponsiveContainer>
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
