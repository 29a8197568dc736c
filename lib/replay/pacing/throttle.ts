// How a batch slows down when the sink says "too much" (429, 503) and how it recovers. Stored as two columns
// (replay_batch.throttle, throttled_at); the effective multiplier is computed from them and the clock, so
// recovery needs no writes. lib/replay/pacing/reserve-slots.ts applies the same formulas in SQL.

/** Multiplicative decrease on each slow-down signal (at most one per DECREASE_EVERY_MS). */
export const DECREASE_FACTOR = 0.5;
/** Never below 5% of the configured rate: a throttled batch still makes progress and probes the sink. */
export const MIN_THROTTLE = 0.05;
/** Linear recovery: +10% of the configured rate per second without a new signal (0.5 → 1 in 5 s). */
export const RECOVERY_PER_SECOND = 0.1;
/** Concurrent requests answered 429 together count as one signal: halve at most once a second. */
export const DECREASE_EVERY_MS = 1000;

export interface ThrottleState {
  throttle: number;
  throttledAt: Date | null;
}

export function effectiveThrottle(s: ThrottleState, now: Date): number {
  if (s.throttledAt === null) return Math.min(1, s.throttle);
  const seconds = Math.max(0, (now.getTime() - s.throttledAt.getTime()) / 1000);
  return Math.min(1, s.throttle + RECOVERY_PER_SECOND * seconds);
}

/** The state after a 429/503 from the sink at `now`. */
export function throttleDown(s: ThrottleState, now: Date): ThrottleState {
  if (s.throttledAt !== null && now.getTime() - s.throttledAt.getTime() < DECREASE_EVERY_MS) return s;
  return { throttle: Math.max(MIN_THROTTLE, effectiveThrottle(s, now) * DECREASE_FACTOR), throttledAt: now };
}
