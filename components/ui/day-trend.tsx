/** Counts per day as small bars (the last 14 days of a group's records), for quarantine and failure groups. */
export function DayTrend({ trend }: { trend: readonly { day: string; count: number }[] }) {
  const max = Math.max(1, ...trend.map((t) => t.count));
  return (
    <div
      className="flex h-6 items-end gap-px"
      aria-label={`observed per day, last 14 days: ${trend.map((t) => t.count).join(", ")}`}
      role="img"
    >
      {trend.map((t) => (
        <div
          key={t.day}
          title={`${t.day}: ${t.count}`}
          className={t.count ? "w-1.5 bg-red-600 dark:bg-red-400" : "w-1.5 bg-slate-200 dark:bg-slate-700"}
          style={{ height: `${Math.max(8, (100 * t.count) / max)}%` }}
        />
      ))}
    </div>
  );
}
