// The bound: no 1-second window holds more than 110% of the rate. Slots are 1/rate apart and a submission
// lands up to MAX_SPREAD_MS after its slot (gcra.ts), which keeps windows within the bound from 10/s up; below
// that 10% is less than one item (at 5/s: 5 per window, 6 is +20%), and a submission 20 ms late followed by one
// on time already puts 6 in a window. So each worker also remembers when it actually submitted a batch's last
// items and holds the next one until it cannot make a window over the bound. Only this worker's submissions
// are seen: with several workers at such low rates the schedule's spacing is what bounds the windows.

/** Most submissions any 1-s window may hold at `rate` (≥ 1). */
export function windowCap(rate: number): number {
  return Math.max(1, Math.floor(rate * 1.1 + 1e-9));
}

/** Slack against jitter on the way to the sink: spaced a window + this apart, cap + 1 submissions never arrive in one. */
export const MARGIN_MS = 10;

export class SendWindow {
  /** the last `cap` submission times, oldest at `next` once full (a ring: O(1) at any rate) */
  private readonly times: number[] = [];
  private next = 0;

  constructor(
    private readonly cap: number,
    private readonly windowMs = 1000,
  ) {}

  /** How long to wait at `now` (ms, performance.now()) before the next submission keeps every window ≤ cap. */
  waitMs(now: number): number {
    if (this.times.length < this.cap) return 0;
    // A whole window after the cap-th latest, plus a margin for what happens between here and the sink (the
    // request's own path can bring two arrivals at the sink closer together than their submissions).
    return Math.max(0, (this.times[this.next] as number) + this.windowMs + MARGIN_MS - now);
  }

  record(now: number): void {
    if (this.times.length < this.cap) {
      this.times.push(now);
      return;
    }
    this.times[this.next] = now;
    this.next = (this.next + 1) % this.cap;
  }
}

/** Rates above this are unpaced drains in practice (a window cap in the millions guards nothing): no window. */
export const WINDOWED_UP_TO = 10_000;
