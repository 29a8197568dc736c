// Chart colours for each theme. Recharts takes colours as SVG attribute values, so the dark: classes cannot
// reach them; each pair keeps at least 4.5:1 for text (ticks, labels) and 3:1 for lines against its page.

export interface ChartColours {
  grid: string;
  axis: string; // tick labels and axis lines
  ink: string; // a reference line and its label
  warn: string;
  good: string;
  neutralBar: string;
  badBar: string;
  tooltip: { backgroundColor: string; borderColor: string; color: string };
}

const LIGHT: ChartColours = {
  grid: "#e2e8f0", // slate-200
  axis: "#475569", // slate-600
  ink: "#0f172a", // slate-900
  warn: "#b45309", // amber-700
  good: "#059669", // emerald-600
  neutralBar: "#64748b", // slate-500
  badBar: "#b91c1c", // red-700
  tooltip: { backgroundColor: "#ffffff", borderColor: "#cbd5e1", color: "#0f172a" },
};

const DARK: ChartColours = {
  grid: "#334155", // slate-700
  axis: "#cbd5e1", // slate-300
  ink: "#f1f5f9", // slate-100
  warn: "#fbbf24", // amber-400
  good: "#34d399", // emerald-400
  neutralBar: "#94a3b8", // slate-400
  badBar: "#f87171", // red-400
  tooltip: { backgroundColor: "#0f172a", borderColor: "#475569", color: "#f1f5f9" },
};

export function chartColours(dark: boolean): ChartColours {
  return dark ? DARK : LIGHT;
}
