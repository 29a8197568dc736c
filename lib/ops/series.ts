// Time buckets for the overview's charts, in UTC, zero-filled so a quiet hour shows as 0 rather than as a gap
// the chart would draw straight across. Pure.

export type Unit = "hour" | "day";

const STEP: Record<Unit, number> = { hour: 3_600_000, day: 86_400_000 };

/** Start of the bucket holding `t`. */
export function bucketStart(t: Date, unit: Unit): number {
  return Math.floor(t.getTime() / STEP[unit]) * STEP[unit];
}

/** The `count` buckets ending with the one holding `now`, oldest first, as epoch ms. */
export function bucketRange(now: Date, unit: Unit, count: number): number[] {
  const last = bucketStart(now, unit);
  return Array.from({ length: count }, (_, i) => last - (count - 1 - i) * STEP[unit]);
}

export interface SeriesPoint {
  at: string;
  arrivals: number;
  poison: number;
}

/** Rows keyed by bucket start (epoch ms) → one point per bucket of the range. */
export function fillSeries(range: number[], rows: { at: number; arrivals: number; poison: number }[]): SeriesPoint[] {
  const byAt = new Map(rows.map((r) => [r.at, r]));
  return range.map((at) => ({ at: new Date(at).toISOString(), arrivals: byAt.get(at)?.arrivals ?? 0, poison: byAt.get(at)?.poison ?? 0 }));
}
