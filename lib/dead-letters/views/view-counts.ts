// How many views get a live count per answer, and the short cache behind them. Pure (no database): the cache
// takes the function that counts.

/**
 * Views counted per answer: the list's count is cheap from the rollup but not for a filter it cannot serve (a
 * search, a viewport, a note), so an answer stays near a second even when every view is one of those.
 */
export const COUNTED_VIEWS = 12;
/** A count this young is served again: the overview and every open list's menu poll, and the rollup changes by the second anyway. */
export const COUNT_TTL_MS = 5_000;

export class TtlCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 500,
  ) {}

  /** The value for `key` computed less than ttl ago (or still being computed), else `compute()`'s; failures are not kept. */
  get(key: string, now: number, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const value = compute();
    this.entries.set(key, { at: now, value });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}

export const countCache = new TtlCache<{ total: number; exact: boolean }>(COUNT_TTL_MS);
