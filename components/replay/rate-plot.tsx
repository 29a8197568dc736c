"use client";

import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { chartColours } from "@/components/theme/chart-colours";
import { useDarkTheme } from "@/components/theme/use-dark-theme";
import { compactNumber as compact } from "@/components/ui/compact-number";
import type { RatePoint } from "@/lib/replay/batch/batch-schemas";

/** The axis's clock, UTC as every time shown (the chart's caption says so). */
const clock = (t: number) => new Date(t * 1000).toISOString().slice(11, 19);

/** The line of rate-chart.tsx, in a module of its own so recharts loads only when it is drawn. */
export function RatePlot({
  points,
  configured,
  throttle,
  drawCeiling,
}: {
  points: RatePoint[];
  configured: number;
  throttle: number;
  drawCeiling: boolean;
}) {
  const c = chartColours(useDarkTheme());
  return (
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
        <Tooltip contentStyle={c.tooltip} labelFormatter={(t) => `${clock(Number(t))} UTC`} formatter={(v) => [`${v}/s`, "submitted"]} />
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
  );
}
