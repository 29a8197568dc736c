// The database's clock as seen from this worker. The shared rate limiter hands out slots as points in time on
// the database's clock; a worker must turn them into its own time without adding the round trip's variance.
// Relative offsets ("in 40 ms") counted from when the answer arrives are late by however long the answer took
// — little on a quiet machine, much more under load — and differently for every grant, which squeezes the
// slots of one grant against the next until a 1-s window holds more than the rate.
//
// So slots come back as absolute database times and this keeps an estimate of (database clock − local clock),
// NTP-style: each query is a sample whose error is at most half its round trip, and the sample with the
// shortest round trip among the recent ones wins. On one machine the offset is ~0; across machines it absorbs
// their clock skew.

export interface ClockSample {
  /** local epoch ms when the query was sent */
  sentAt: number;
  /** local epoch ms when its answer arrived */
  receivedAt: number;
  /** the database's epoch ms while it answered */
  dbAt: number;
}

const KEEP = 16;

export class ClockSync {
  private samples: { rtt: number; offset: number }[] = [];

  add(s: ClockSample): void {
    const rtt = Math.max(0, s.receivedAt - s.sentAt);
    this.samples.push({ rtt, offset: s.dbAt - (s.sentAt + s.receivedAt) / 2 });
    if (this.samples.length > KEEP) this.samples.shift();
  }

  /** database clock − local clock, in ms (0 before the first sample) */
  offsetMs(): number {
    let best: { rtt: number; offset: number } | null = null;
    for (const s of this.samples) if (!best || s.rtt < best.rtt) best = s;
    return best?.offset ?? 0;
  }

  /** A database time as a local epoch ms. */
  toLocal(dbMs: number): number {
    return dbMs - this.offsetMs();
  }
}
