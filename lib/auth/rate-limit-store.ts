import "server-only";
import type pg from "pg";

// better-auth's limiter (sign-in attempts per client address and path) counted in PostgreSQL, so N servers
// behind a load balancer share one count instead of allowing N times the limit. One statement per attempt: the
// upsert takes the row lock, so concurrent attempts from any server are counted one after another, and the
// window is read from the database's clock, the one clock every server shares.
//
// A fixed window: it starts at the first attempt and every attempt in it counts, refused ones included (a client
// that keeps guessing is not let in again mid-window).

const CONSUME = `
  INSERT INTO auth_rate_limit AS r (key, window_start, count) VALUES ($1, clock_timestamp(), 1)
  ON CONFLICT (key) DO UPDATE SET
    window_start = CASE WHEN r.window_start <= clock_timestamp() - make_interval(secs => $2) THEN clock_timestamp() ELSE r.window_start END,
    count = CASE WHEN r.window_start <= clock_timestamp() - make_interval(secs => $2) THEN 1 ELSE r.count + 1 END
  RETURNING count, GREATEST(0, EXTRACT(EPOCH FROM r.window_start + make_interval(secs => $2) - clock_timestamp()))::float8 AS remaining`;

export interface RateLimitRule {
  /** seconds */
  window: number;
  max: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** whole seconds until the window frees up, when refused */
  retryAfter: number | null;
}

/** The storage better-auth calls for each limited request (its `rateLimit.customStorage`). */
export function postgresRateLimitStore(pool: pg.Pool): { consume(key: string, rule: RateLimitRule): Promise<RateLimitDecision> } {
  return {
    async consume(key, rule) {
      const { rows } = await pool.query<{ count: number; remaining: number }>(CONSUME, [key, rule.window]);
      const row = rows[0];
      if (!row || row.count <= rule.max) return { allowed: true, retryAfter: null };
      return { allowed: false, retryAfter: Math.max(1, Math.ceil(row.remaining)) };
    },
  };
}

/** Forgets windows that ended long ago (the maintenance loop calls it); returns how many rows went. */
export async function pruneRateLimits(pool: pg.Pool, olderThanSeconds = 3600): Promise<number> {
  const res = await pool.query(`DELETE FROM auth_rate_limit WHERE window_start < clock_timestamp() - make_interval(secs => $1)`, [
    olderThanSeconds,
  ]);
  return res.rowCount ?? 0;
}
