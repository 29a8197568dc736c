// When a failed submission is tried again. Exponential backoff with "equal jitter" (half fixed, half random)
// so retries of items that failed together spread out instead of returning as one wave; a Retry-After from
// the sink is a floor, never shortened.

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1000, maxMs: 5 * 60_000 };
/** A Retry-After beyond this is treated as this: an hour-long wait is a pause, which a human should decide. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;

/** Delay before attempt `attempt + 1`, after `attempt` (≥ 1) failed. `random` returns [0, 1). */
export function backoffMs(attempt: number, random: () => number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const exp = opts.baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30));
  const cap = Math.min(opts.maxMs, exp);
  return Math.round(cap / 2 + random() * (cap / 2));
}

export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | null,
  random: () => number,
  opts: BackoffOptions = DEFAULT_BACKOFF,
): number {
  const backoff = backoffMs(attempt, random, opts);
  return retryAfterMs === null ? backoff : Math.max(backoff, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  // An HTTP-date names its month; Date.parse alone would read "-1" as a year. All three HTTP-date forms are
  // GMT, but the obsolete asctime one ("Sun Nov  6 08:49:37 1994") says so nowhere, and Date.parse reads a
  // date without a zone in the server's local time.
  const zoned = /(?:GMT|UTC|Z|[+-]\d{4})$/i.test(v) ? v : `${v} GMT`;
  const at = /[a-z]{3}/i.test(v) ? Date.parse(zoned) : Number.NaN;
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}
