import "server-only";
import type pg from "pg";
import type { Grant, GcraParams } from "./gcra";
import { DECREASE_EVERY_MS, DECREASE_FACTOR, MIN_THROTTLE, RECOVERY_PER_SECOND } from "./throttle";

// The batch's shared rate limiter in SQL: lib/replay/pacing/gcra.ts's grantSlots and lib/replay/pacing/throttle.ts's
// formulas, evaluated on the locked replay_batch row in ONE statement, so every worker on every machine draws
// from the same schedule. Slots come back as times on the database's clock (clock_timestamp(), read once the
// row lock is held: now() would be the statement's start, before any wait for another worker's grant); the
// worker maps them to its own clock with ClockSync (clock-sync.ts), which also absorbs skew between machines.
//
// Commits are asynchronous (see claim-items.ts): a crash can only lose the last few milliseconds of `tat`.

const EFFECTIVE_THROTTLE = `least(1.0, CASE WHEN b.throttled_at IS NULL THEN b.throttle
  ELSE b.throttle + ${RECOVERY_PER_SECOND} * extract(epoch FROM now() - b.throttled_at) END)`;

export interface SqlGrant extends Pick<Grant, "granted" | "startInMs" | "intervalMs" | "retryInMs"> {
  /** the batch is no longer running: stop */
  stopped: boolean;
  /** the first granted slot, epoch ms on the database's clock */
  startAtMs: number;
  /** the database's clock when it granted, epoch ms */
  dbNowMs: number;
}

/** Reserves up to `requested` slots of the batch's schedule (rate × effective throttle). */
export async function reserveSlots(
  db: pg.Pool | pg.PoolClient,
  batchId: string,
  requested: number,
  p: Omit<GcraParams, "rate">,
): Promise<SqlGrant> {
  const { rows } = await db.query<{ granted: number; interval_ms: number; retry_in_ms: number; start_at_ms: number; db_now_ms: number }>(
    `WITH async AS (SELECT set_config('synchronous_commit', 'off', true)),
     locked AS (
       SELECT b.id, b.tat, b.rate_per_second * ${EFFECTIVE_THROTTLE} AS rate
       FROM replay_batch b, async
       WHERE b.id = $1 AND b.status = 'running'
       FOR UPDATE OF b
     ),
     -- The clock is read from the locked row's CTE, so after any wait for another worker's grant.
     clocked AS (SELECT id, tat, rate, clock_timestamp() AS now_ FROM locked),
     cur AS (
       SELECT id, now_, rate, greatest(coalesce(tat, now_), now_ - $4 * interval '1 millisecond') AS base FROM clocked
     ), avail AS (
       SELECT id, now_, base, rate,
         CASE WHEN base > now_ + $3 * interval '1 millisecond' THEN 0
              ELSE floor(extract(epoch FROM now_ + $3 * interval '1 millisecond' - base) * rate)::int + 1 END AS n,
         least($2::int, greatest(1, $5::int)) AS floor_n
       FROM cur
     ), g AS (
       SELECT *, CASE WHEN n >= floor_n THEN least(n, $2::int) ELSE 0 END AS granted FROM avail
     )
     UPDATE replay_batch b SET tat = g.base + g.granted * (interval '1 second' / g.rate)
     FROM g WHERE b.id = g.id
     RETURNING g.granted,
       (extract(epoch FROM g.base) * 1000)::float8 AS start_at_ms,
       (extract(epoch FROM g.now_) * 1000)::float8 AS db_now_ms,
       (1000.0 / g.rate)::float8 AS interval_ms,
       CASE WHEN g.granted > 0 THEN 0 ELSE greatest(1, (extract(epoch FROM g.base - g.now_) * 1000
         + (g.floor_n - 1) * 1000.0 / g.rate - $3))::float8 END AS retry_in_ms`,
    [batchId, requested, p.horizonMs, p.toleranceMs, p.minGrant],
  );
  const r = rows[0];
  if (!r) return { granted: 0, startInMs: 0, intervalMs: 0, retryInMs: 0, stopped: true, startAtMs: 0, dbNowMs: 0 };
  return {
    granted: r.granted,
    startInMs: r.start_at_ms - r.db_now_ms,
    intervalMs: r.interval_ms,
    retryInMs: r.retry_in_ms,
    stopped: false,
    startAtMs: r.start_at_ms,
    dbNowMs: r.db_now_ms,
  };
}

/**
 * The sink said "too much" (429/503): lower the batch's throttle (at most once a second, never below the
 * floor) and keep every worker from submitting before Retry-After has passed by pushing `tat` past it.
 */
export async function slowDown(db: pg.Pool | pg.PoolClient, batchId: string, retryAfterMs: number | null): Promise<void> {
  await db.query(
    `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
     UPDATE replay_batch b SET
       throttle = CASE WHEN b.throttled_at IS NULL OR b.throttled_at <= now() - $2 * interval '1 millisecond'
                       THEN greatest($3, ${EFFECTIVE_THROTTLE} * $4) ELSE b.throttle END,
       throttled_at = CASE WHEN b.throttled_at IS NULL OR b.throttled_at <= now() - $2 * interval '1 millisecond'
                           THEN now() ELSE b.throttled_at END,
       tat = greatest(coalesce(b.tat, now()), now() + coalesce($5, 0) * interval '1 millisecond')
     FROM async
     WHERE b.id = $1`,
    [batchId, DECREASE_EVERY_MS, MIN_THROTTLE, DECREASE_FACTOR, retryAfterMs],
  );
}
