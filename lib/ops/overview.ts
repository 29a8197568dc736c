import "server-only";
import { batchInScopeSql, paramsOf, scopeSql, sourceColumnSql, type RecordScope } from "../scope/record-scope";
import type pg from "pg";
import { maskReasonGroups } from "../dead-letters/query/mask-list";
import type { MaskRules } from "../masking/rules";
import { listAlertRules, type AlertRuleView } from "./alerts/alert-rules";
import { hoursBetween, notIgnored, oldestUnresolved, UNRESOLVED } from "./measures";
import { bucketRange, fillSeries, type SeriesPoint, type Unit } from "./series";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// The health overview (/ for signed-in users): where the DLQ stands and where it is heading. Counts come from
// the rollup (exact, a few ms at 1M records); arrivals from the (first_seen_at, failure_class) index, an
// index-only range; replays from the batches' own counters. "Arrival" is when the failure was first seen
// (the producer's first_seen_utc, or our capture time): a producer that broke at 09:00 shows at 09:00 even if
// its dead letters were delivered in bulk at noon.

type Db = pg.Pool | pg.PoolClient;

export interface CountCell {
  kind: DeadLetterKind;
  status: string;
  failureClass: string;
  reasonGroup: string;
  /** in an ignored failure group: counted in the totals, not in what needs attention */
  ignored: boolean;
  n: number;
}

export interface RunningReplay {
  id: string;
  status: string;
  total: number;
  done: number;
  ratePerSecond: number;
  achievedPerSecond: number;
  startedAt: string | null;
}

export interface Overview {
  generatedAt: string;
  total: number;
  unresolved: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  byClass: Record<string, number>;
  /** unresolved records by reason pattern, largest first */
  topReasons: { reasonGroup: string; kind: string; count: number }[];
  hourly: SeriesPoint[];
  daily: SeriesPoint[];
  oldest: { id: string; firstSeenAt: string; ageHours: number } | null;
  replays: RunningReplay[];
  alerts: AlertRuleView[];
}

/** The overview as a reader without clear access sees it: reason patterns can hold card numbers (masking/reasons.ts). */
export function maskOverview(o: Overview, rules: MaskRules | null): Overview {
  return rules ? { ...o, topReasons: maskReasonGroups(o.topReasons, rules) } : o;
}

/** Pure: rollup cells → the overview's counts. */
export function summarizeCells(
  cells: CountCell[],
  topN = 10,
): Pick<Overview, "total" | "unresolved" | "byKind" | "byStatus" | "byClass" | "topReasons"> {
  const add = (m: Record<string, number>, k: string, n: number) => (m[k] = (m[k] ?? 0) + n);
  const byKind: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  const byClass: Record<string, number> = {};
  const reasons = new Map<string, { reasonGroup: string; kind: string; count: number }>();
  let total = 0;
  let unresolved = 0;
  const open = new Set<string>(UNRESOLVED);
  for (const c of cells) {
    total += c.n;
    add(byKind, c.kind, c.n);
    add(byStatus, c.status, c.n);
    add(byClass, c.failureClass, c.n);
    if (!open.has(c.status) || c.ignored) continue;
    unresolved += c.n;
    const key = `${c.kind}\u0000${c.reasonGroup}`;
    const r = reasons.get(key) ?? { reasonGroup: c.reasonGroup, kind: c.kind, count: 0 };
    r.count += c.n;
    reasons.set(key, r);
  }
  const topReasons = [...reasons.values()].sort((a, b) => b.count - a.count || a.reasonGroup.localeCompare(b.reasonGroup)).slice(0, topN);
  return { total, unresolved, byKind, byStatus, byClass, topReasons };
}

export async function countCells(db: Db, scope: RecordScope): Promise<CountCell[]> {
  // The rollup counts per source; a scope claiming broker sources counts from the records (see read-groups.ts).
  const values: unknown[] = [];
  const cells =
    !scope.all && scope.origins.length > 0
      ? `(SELECT kind, status, failure_class, source, reason_group, 1 AS n FROM dead_letter d WHERE ${scopeSql(scope, paramsOf(values))})`
      : scope.all
        ? "dead_letter_stat"
        : `(SELECT * FROM dead_letter_stat WHERE ${sourceColumnSql(scope, paramsOf(values), "source")})`;
  const { rows } = await db.query<{
    kind: CountCell["kind"];
    status: string;
    failure_class: string;
    reason_group: string;
    ignored: boolean;
    n: string;
  }>(
    `SELECT kind::text AS kind, status::text AS status, failure_class::text AS failure_class, reason_group,
       NOT ${notIgnored("s")} AS ignored, sum(n)::text AS n
     FROM ${cells} s GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0`,
    values,
  );
  return rows.map((r) => ({
    kind: r.kind,
    status: r.status,
    failureClass: r.failure_class,
    reasonGroup: r.reason_group,
    ignored: r.ignored,
    n: Number(r.n),
  }));
}

export async function arrivalSeries(db: Db, scope: RecordScope, now: Date, unit: Unit, count: number): Promise<SeriesPoint[]> {
  const range = bucketRange(now, unit, count);
  const values: unknown[] = [new Date(range[0] as number), now];
  const { rows } = await db.query<{ at: number; arrivals: number; poison: number }>(
    `SELECT (extract(epoch FROM date_trunc('${unit}', first_seen_at AT TIME ZONE 'UTC')) * 1000)::float8 AS at,
       count(*)::int AS arrivals, count(*) FILTER (WHERE failure_class = 'poison')::int AS poison
     FROM dead_letter d WHERE first_seen_at >= $1 AND first_seen_at <= $2 AND ${scopeSql(scope, paramsOf(values))} GROUP BY 1`,
    values,
  );
  return fillSeries(range, rows);
}

export async function runningReplays(db: Db, scope: RecordScope, now: Date): Promise<RunningReplay[]> {
  const values: unknown[] = [now];
  const { rows } = await db.query<{
    id: string;
    status: string;
    total: number;
    done: number;
    rate_per_second: number;
    recent: number;
    started_at: Date | null;
  }>(
    `SELECT b.id::text AS id, b.status::text AS status, b.total,
       b.applied_count + b.deduped_count + b.dropped_count + b.poison_count + b.failed_count + b.cancelled_count AS done,
       b.rate_per_second, b.started_at,
       (SELECT count(*)::int FROM replay_item i WHERE i.batch_id = b.id AND i.submitted_at > $1::timestamptz - interval '10 seconds') AS recent
     FROM replay_batch b WHERE b.status IN ('approved', 'running', 'paused') AND ${batchInScopeSql(scope, paramsOf(values))} ORDER BY b.id`,
    values,
  );
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    total: r.total,
    done: r.done,
    ratePerSecond: r.rate_per_second,
    achievedPerSecond: r.recent / 10,
    startedAt: r.started_at?.toISOString() ?? null,
  }));
}

export async function healthOverview(db: Db, scope: RecordScope, now: Date): Promise<Overview> {
  const [cells, hourly, daily, oldest, replays, rules] = await Promise.all([
    countCells(db, scope),
    arrivalSeries(db, scope, now, "hour", 48),
    arrivalSeries(db, scope, now, "day", 30),
    oldestUnresolved(db, scope),
    runningReplays(db, scope, now),
    listAlertRules(db, scope, "origin"),
  ]);
  return {
    generatedAt: now.toISOString(),
    ...summarizeCells(cells),
    hourly,
    daily,
    oldest: oldest
      ? { id: oldest.id, firstSeenAt: oldest.firstSeenAt.toISOString(), ageHours: hoursBetween(oldest.firstSeenAt, now) }
      : null,
    replays,
    alerts: rules,
  };
}
