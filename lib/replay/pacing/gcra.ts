// The batch's rate limit: GCRA (generic cell rate algorithm) over one stored value, the theoretical arrival
// time `tat` of the next slot. Every worker reserves slots by advancing replay_batch.tat in one UPDATE
// (lib/replay/pacing/reserve-slots.ts runs the same arithmetic in SQL), so the limit holds for all workers together.
//
// Why reservation instead of a token bucket: a setTimeout-driven bucket under-delivers (late timers discard
// earned tokens) or bursts. A reserved slot is a point in time; a worker sleeps until
// it and a late timer only makes that one submission late — the next slots keep their times, so elapsed time
// is accounted for, not ticks. Slots are spaced 1/rate apart across all workers, so any 1-s window holds at
// most rate + 1 slots; lateness can only push submissions later, plus a catch-up of at most `toleranceMs`.

export interface GcraParams {
  /** slots per second, already multiplied by the throttle */
  rate: number;
  /** how far ahead a worker may reserve: bounds how long a pause waits for reserved slots */
  horizonMs: number;
  /** how far behind `now` the next slot may lie: a worker that fell behind briefly (a commit, a claim) may
   *  catch up this much, so short stalls do not lose slots; it also bounds the burst after an idle spell */
  toleranceMs: number;
  /** grant nothing rather than fewer than min(requested, minGrant) slots: keeps workers from fragmenting the
   *  schedule into one-slot reservations that each cost a round trip */
  minGrant: number;
}

export interface Grant {
  granted: number;
  /** when the first granted slot starts, relative to now (≤ 0: at once) */
  startInMs: number;
  /** spacing of the granted slots */
  intervalMs: number;
  /** the new tat (epoch ms) */
  tat: number;
  /** when granted = 0: how long until asking again can succeed */
  retryInMs: number;
}

/** Reserves up to `requested` slots at `nowMs` given the stored tat (epoch ms, null before the first grant). */
export function grantSlots(tatMs: number | null, nowMs: number, requested: number, p: GcraParams): Grant {
  if (!(p.rate > 0)) throw new RangeError(`rate must be positive, got ${p.rate}`);
  const intervalMs = 1000 / p.rate;
  const base = Math.max(tatMs ?? nowMs, nowMs - p.toleranceMs);
  const limit = nowMs + p.horizonMs;
  // Slots at base, base + T, … that start no later than now + horizon.
  const available = base > limit ? 0 : Math.floor((limit - base) / intervalMs) + 1;
  const wanted = Math.max(0, Math.floor(requested));
  const floor = Math.min(wanted, Math.max(1, p.minGrant));
  const granted = available >= floor ? Math.min(available, wanted) : 0;
  // Time until `floor` slots fit inside the horizon.
  const retryInMs = granted > 0 ? 0 : Math.max(1, base + (floor - 1) * intervalMs - limit);
  return { granted, startInMs: base - nowMs, intervalMs, tat: base + granted * intervalMs, retryInMs };
}

/** The times (ms relative to the grant) of each granted slot. */
export function slotOffsets(grant: Pick<Grant, "granted" | "startInMs" | "intervalMs">): number[] {
  return Array.from({ length: grant.granted }, (_, i) => grant.startInMs + i * grant.intervalMs);
}

/** Default pacing parameters for a rate: reserve ≤ 250 ms ahead, catch up ≤ 25 ms, reserve ≥ 20 ms at a time. */
export function pacingFor(rate: number): GcraParams {
  return { rate, horizonMs: 250, toleranceMs: 25, minGrant: Math.max(1, Math.floor(rate * 0.02)) };
}

/**
 * How late a granted slot may still be used. A submission lands between its slot's time and `toleranceMs`
 * (a catch-up slot) + this limit after it, so within any 1-s window the slots' spacing can shrink by at most
 * that spread in total: a spread ≤ 100 ms keeps every window within rate × 1.1 (at 10/s: 11), whatever the
 * rate; a limit of one whole interval lets a window overshoot. A stalled worker
 * (busy event loop, slow commit) gives up slots later than this rather than send them all at once on top of
 * the next ones; the item waits for a fresh slot.
 */
export const MAX_SPREAD_MS = 100;

export function lateLimitMs(toleranceMs: number): number {
  return Math.max(0, MAX_SPREAD_MS - toleranceMs);
}

/** How many items a worker should claim for a batch at this rate: about one horizon's worth, ≤ pageSize. */
export function claimSizeFor(rate: number, pageSize: number, horizonMs = 250): number {
  return Math.max(1, Math.min(pageSize, Math.ceil((rate * horizonMs) / 1000)));
}

/** A page's worth of slots spanning at most this long: the rate no longer paces the drain (locked-page.ts). */
export const UNPACED_PAGE_SPAN_MS = 50;

/**
 * At this rate and page size the limiter does not hold a drain back: it goes as fast as the workers (and the sink)
 * take it, and "records / rate" says nothing about how long it lasts.
 */
export function isUnpaced(rate: number, pageSize: number): boolean {
  return rate > 0 && (pageSize * 1000) / rate <= UNPACED_PAGE_SPAN_MS;
}
