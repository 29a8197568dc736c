import "server-only";
import type pg from "pg";
import type { QuarantineGroup } from "../record-schemas";

// Quarantined records grouped by reason pattern, with a 14-day trend, for /quarantine. Read from the
// trigger-maintained rollup (dead_letter_stat, see lib/dead-letters/query/facets.ts): a few thousand delta rows
// instead of counting up to 1M records on every page load. The rollup is per UTC day of *observation*, so
// the trend says when the poison events happened, which is what points at the producer release that broke.

export const TREND_DAYS = 14;

interface Row {
  reason_group: string;
  kind: QuarantineGroup["kind"];
  day: string;
  n: string;
}

/** UTC calendar days [today - days + 1, today] as YYYY-MM-DD. */
export function lastDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** Pure: rollup rows → groups, largest first, each with a zero-filled trend. */
export function toGroups(
  rows: { reasonGroup: string; kind: QuarantineGroup["kind"]; day: string; n: number }[],
  now: Date,
): QuarantineGroup[] {
  const days = lastDays(now, TREND_DAYS);
  const groups = new Map<string, { group: QuarantineGroup; byDay: Map<string, number> }>();
  for (const r of rows) {
    const key = `${r.kind}\u0000${r.reasonGroup}`;
    let g = groups.get(key);
    if (!g) {
      g = { group: { reasonGroup: r.reasonGroup, kind: r.kind, count: 0, trend: [] }, byDay: new Map() };
      groups.set(key, g);
    }
    g.group.count += r.n;
    g.byDay.set(r.day, (g.byDay.get(r.day) ?? 0) + r.n);
  }
  return [...groups.values()]
    .filter((g) => g.group.count > 0)
    .map(({ group, byDay }) => ({ ...group, trend: days.map((day) => ({ day, count: byDay.get(day) ?? 0 })) }))
    .sort((a, b) => b.count - a.count || a.reasonGroup.localeCompare(b.reasonGroup));
}

export async function quarantineGroups(db: pg.Pool | pg.PoolClient, now: Date): Promise<QuarantineGroup[]> {
  const { rows } = await db.query<Row>(
    `SELECT reason_group, kind::text AS kind, to_char(day, 'YYYY-MM-DD') AS day, sum(n)::text AS n
     FROM dead_letter_stat WHERE status = 'quarantined'
     GROUP BY 1, 2, 3 HAVING sum(n) <> 0`,
  );
  return toGroups(
    rows.map((r) => ({ reasonGroup: r.reason_group, kind: r.kind, day: r.day, n: Number(r.n) })),
    now,
  );
}
