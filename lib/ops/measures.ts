import "server-only";
import type pg from "pg";

// The few numbers the overview, the alerts and /api/metrics share, each read from the cheapest exact source:
// counts by facet from the trigger-maintained rollup (dead_letter_stat), times from the first_seen_at indexes
// added for this (index-only, or one probe per status).

type Db = pg.Pool | pg.PoolClient;

export const UNRESOLVED = ["pending", "approved", "quarantined"] as const;

/** Records still waiting for someone: pending, approved (not yet replayed) or quarantined. */
export async function unresolvedCount(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: string | null }>(
    `SELECT sum(n)::text AS n FROM dead_letter_stat WHERE status = ANY($1::"DeadLetterStatus"[])`,
    [UNRESOLVED],
  );
  return Number(rows[0]?.n ?? 0);
}

/** When the oldest unresolved record was first seen: one probe of (status, first_seen_at) per status. */
export async function oldestUnresolved(db: Db): Promise<{ id: string; firstSeenAt: Date } | null> {
  const { rows } = await db.query<{ id: string; first_seen_at: Date }>(
    `SELECT id::text AS id, first_seen_at FROM (
       ${UNRESOLVED.map((s) => `(SELECT id, first_seen_at FROM dead_letter WHERE status = '${s}' ORDER BY first_seen_at LIMIT 1)`).join(" UNION ALL ")}
     ) o ORDER BY first_seen_at LIMIT 1`,
  );
  const r = rows[0];
  return r ? { id: r.id, firstSeenAt: r.first_seen_at } : null;
}

/** Poison records first seen in [since, until): an index-only range on (first_seen_at, failure_class). */
export async function poisonArrivals(db: Db, since: Date, until: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM dead_letter WHERE first_seen_at >= $1 AND first_seen_at < $2 AND failure_class = 'poison'`,
    [since, until],
  );
  return rows[0]?.n ?? 0;
}

export function hoursBetween(from: Date, to: Date): number {
  return Math.max(0, (to.getTime() - from.getTime()) / 3_600_000);
}

/** Enabled broker sources whose attempts have failed since before `since` (the source_down alert). */
export async function failingSources(db: pg.Pool | pg.PoolClient, since: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM source WHERE enabled AND failing_since IS NOT NULL AND failing_since <= $1",
    [since],
  );
  return rows[0]?.n ?? 0;
}
