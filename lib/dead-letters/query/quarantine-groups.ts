import "server-only";
import { paramsOf, scopeSql, sourceColumnSql, type RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import type { QuarantineGroup } from "../contract/quarantine";

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

/** How many of a group's people-given quarantine reasons are shown (the rest are on the records' timelines). */
export const QUARANTINE_REASONS_SHOWN = 3;

/** Pure: adds each group's people-given reasons (rows of reason group, kind, reason, count), most frequent first. */
export function withReasons(
  groups: QuarantineGroup[],
  reasons: { reasonGroup: string; kind: QuarantineGroup["kind"]; reason: string; n: number }[],
): QuarantineGroup[] {
  const byGroup = new Map<string, { reason: string; count: number }[]>();
  for (const r of reasons) {
    const key = `${r.kind}\u0000${r.reasonGroup}`;
    byGroup.set(key, [...(byGroup.get(key) ?? []), { reason: r.reason, count: r.n }]);
  }
  return groups.map((g) => {
    const list = (byGroup.get(`${g.kind}\u0000${g.reasonGroup}`) ?? [])
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
      .slice(0, QUARANTINE_REASONS_SHOWN);
    return { ...g, reasons: list };
  });
}

export async function quarantineGroups(db: pg.Pool | pg.PoolClient, scope: RecordScope, now: Date): Promise<QuarantineGroup[]> {
  // The rollup counts per source; a scope claiming broker sources counts from the records (see read-groups.ts).
  const fromRecords = !scope.all && scope.origins.length > 0;
  const countValues: unknown[] = [];
  const cells = fromRecords
    ? `SELECT reason_group, kind, (observed_at AT TIME ZONE 'UTC')::date AS day, 1 AS n FROM dead_letter d
       WHERE d.status = 'quarantined' AND ${scopeSql(scope, paramsOf(countValues))}`
    : `SELECT reason_group, kind, day, n FROM dead_letter_stat WHERE status = 'quarantined' AND ${sourceColumnSql(scope, paramsOf(countValues), "source")}`;
  const reasonValues: unknown[] = [];
  const reasonScope = scopeSql(scope, paramsOf(reasonValues));
  const [counts, reasons] = await Promise.all([
    db.query<Row>(
      `SELECT reason_group, kind::text AS kind, to_char(day, 'YYYY-MM-DD') AS day, sum(n)::text AS n
       FROM (${cells}) c
       GROUP BY 1, 2, 3 HAVING sum(n) <> 0`,
      countValues,
    ),
    // The reason given with each quarantined record's latest quarantine decision (the audit chain keeps it; the
    // record does not): quarantined records only, each one index probe into the audit's target index.
    db.query<{ reason_group: string; kind: QuarantineGroup["kind"]; reason: string; n: number }>(
      `SELECT d.reason_group, d.kind::text AS kind, q.reason, count(*)::int AS n
       FROM dead_letter d
       CROSS JOIN LATERAL (SELECT a.reason FROM audit_event a
                           WHERE a.target_type = 'dead_letter' AND a.target_id = d.id::text AND a.action = 'dead_letter.quarantined'
                           ORDER BY a.id DESC LIMIT 1) q
       WHERE d.status = 'quarantined' AND q.reason IS NOT NULL AND ${reasonScope}
       GROUP BY 1, 2, 3`,
      reasonValues,
    ),
  ]);
  const groups = toGroups(
    counts.rows.map((r) => ({ reasonGroup: r.reason_group, kind: r.kind, day: r.day, n: Number(r.n) })),
    now,
  );
  return withReasons(
    groups,
    reasons.rows.map((r) => ({ reasonGroup: r.reason_group, kind: r.kind, reason: r.reason, n: r.n })),
  );
}
