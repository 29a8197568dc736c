"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { chartColours } from "@/components/theme/chart-colours";
import { useDarkTheme } from "@/components/theme/use-dark-theme";
import { compactNumber } from "@/components/ui/compact-number";
import type { SeriesPoint } from "@/lib/ops/series";

// The overview's arrival and poison bars. Its own module so the overview loads recharts (most of the page's
// script) only once the bars are drawn, not before the page is interactive: see overview-dashboard.tsx.

export function ArrivalsBars({ data, unit }: { data: SeriesPoint[]; unit: "hour" | "day" }) {
  const label = (at: string) => (unit === "hour" ? `${at.slice(11, 13)}h` : at.slice(5, 10));
  const c = chartColours(useDarkTheme());
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -8 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} stroke={c.grid} />
        <XAxis dataKey="at" tickFormatter={label} fontSize={11} minTickGap={16} stroke={c.axis} tick={{ fill: c.axis }} />
        <YAxis fontSize={11} allowDecimals={false} width={48} tickFormatter={compactNumber} stroke={c.axis} tick={{ fill: c.axis }} />
        <Tooltip
          contentStyle={c.tooltip}
          cursor={{ fill: c.grid, fillOpacity: 0.4 }}
          labelFormatter={(at) =>
            `${String(at)
              .replace("T", " ")
              .slice(0, unit === "hour" ? 16 : 10)} UTC`
          }
        />
        <Legend wrapperStyle={{ fontSize: 12, color: c.axis }} />
        <Bar dataKey="arrivals" name="first seen" fill={c.neutralBar} isAnimationActive={false} />
        <Bar dataKey="poison" name="poison" fill={c.badBar} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
