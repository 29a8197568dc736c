import "server-only";
import { paramsOf, scopeSql, sourceColumnSql, type RecordScope } from "../scope/record-scope";
import type pg from "pg";

// The few numbers the overview, the alerts and /api/metrics share, each read from the cheapest exact source:
// counts by facet from the trigger-maintained rollup (dead_letter_stat), times from the first_seen_at indexes
// added for this (index-only, or one probe per status).

type Db = pg.Pool | pg.PoolClient;

export const UNRESOLVED = ["pending", "approved", "quarantined"] as const;

/**
 * Records of an ignored failure group (lib/dead-letters/groups) are kept but need no one's attention: the counts
 * and times that alert leave them out. `alias` names a table with source and reason_group columns.
 */
export const notIgnored = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM failure_group ig WHERE ig.status = 'ignored' AND ig.source = ${alias}.source AND ig.reason_group = ${alias}.reason_group)`;

/**
 * notIgnored for a query over dead_letter, only when some group is ignored: the test reads source and reason
 * group from the heap, which would turn index-only scans (first_seen_at) into heap fetches for nothing.
 */
async function ignoredFilter(db: Db, alias: string): Promise<string> {
  const { rows } = await db.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM failure_group WHERE status = 'ignored') AS any");
  return rows[0]?.any ? ` AND ${notIgnored(alias)}` : "";
}

/**
 * Records still waiting for someone: pending, approved (not yet replayed) or quarantined, outside ignored groups,
 * within `scope`. From the rollup, per source; a scope that claims broker sources counts the records themselves
 * (the rollup has no origin: docs/benchmarks.md "Alerts per team").
 */
export async function unresolvedCount(db: Db, scope: RecordScope): Promise<number> {
  const values: unknown[] = [UNRESOLVED];
  const p = paramsOf(values);
  const sql =
    !scope.all && scope.origins.length > 0
      ? `SELECT count(*)::text AS n FROM dead_letter d WHERE status = ANY($1::"DeadLetterStatus"[]) AND ${scopeSql(scope, p)}${await ignoredFilter(db, "d")}`
      : `SELECT sum(n)::text AS n FROM dead_letter_stat s WHERE status = ANY($1::"DeadLetterStatus"[]) AND ${notIgnored("s")}
           AND ${sourceColumnSql(scope, p, "s.source")}`;
  const { rows } = await db.query<{ n: string | null }>(sql, values);
  return Number(rows[0]?.n ?? 0);
}

/** When the oldest unresolved record was first seen: one probe of (status, first_seen_at) per status. */
export async function oldestUnresolved(db: Db, scope: RecordScope): Promise<{ id: string; firstSeenAt: Date } | null> {
  const ignored = await ignoredFilter(db, "d");
  const values: unknown[] = [];
  const scoped = scope.all ? "" : ` AND ${scopeSql(scope, paramsOf(values))}`;
  const { rows } = await db.query<{ id: string; first_seen_at: Date }>(
    `SELECT id::text AS id, first_seen_at FROM (
       ${UNRESOLVED.map((s) => `(SELECT id, first_seen_at FROM dead_letter d WHERE status = '${s}'${ignored}${scoped} ORDER BY first_seen_at LIMIT 1)`).join(" UNION ALL ")}
     ) o ORDER BY first_seen_at LIMIT 1`,
    values,
  );
  const r = rows[0];
  return r ? { id: r.id, firstSeenAt: r.first_seen_at } : null;
}

/** Poison records first seen in [since, until): an index-only range on (first_seen_at, failure_class). */
export async function poisonArrivals(db: Db, scope: RecordScope, since: Date, until: Date): Promise<number> {
  const ignored = await ignoredFilter(db, "d");
  const values: unknown[] = [since, until];
  const scoped = scope.all ? "" : ` AND ${scopeSql(scope, paramsOf(values))}`;
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM dead_letter d WHERE first_seen_at >= $1 AND first_seen_at < $2 AND failure_class = 'poison'${ignored}${scoped}`,
    values,
  );
  return rows[0]?.n ?? 0;
}

export function hoursBetween(from: Date, to: Date): number {
  return Math.max(0, (to.getTime() - from.getTime()) / 3_600_000);
}

/**
 * Enabled broker sources whose attempts have failed since before `since` (the source_down alert); within a scope,
 * the broker sources its teams claim by name (a team's `origin`).
 */
export async function failingSources(db: Db, since: Date, scope: RecordScope): Promise<number> {
  const values: unknown[] = [since];
  const claimed = scope.all ? "" : ` AND name = ANY(${paramsOf(values)(scope.origins)}::text[])`;
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM source WHERE enabled AND failing_since IS NOT NULL AND failing_since <= $1${claimed}`,
    values,
  );
  return rows[0]?.n ?? 0;
}
