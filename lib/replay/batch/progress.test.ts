import { describe, expect, it } from "vitest";
import { averageRate, isLive, progressText } from "./progress";

const counts = (c: Partial<Record<"applied" | "deduped" | "dropped" | "poison" | "failed" | "cancelled" | "pending", number>>) => ({
  applied: 0,
  deduped: 0,
  dropped: 0,
  poison: 0,
  failed: 0,
  cancelled: 0,
  pending: 0,
  ...c,
});

describe("progressText", () => {
  it("counts what was dealt with and says the cancelled apart", () => {
    expect(progressText(25, counts({ applied: 10, cancelled: 15 }))).toBe("10 / 25 · 15 cancelled");
    expect(progressText(37, counts({ cancelled: 37 }))).toBe("0 / 37 · 37 cancelled");
    expect(progressText(5, counts({ applied: 2, deduped: 1, dropped: 1, poison: 1 }))).toBe("5 / 5");
    expect(progressText(1200, counts({ applied: 1000, pending: 200 }), (n) => n.toLocaleString("en"))).toBe("1,000 / 1,200");
  });
});

describe("isLive", () => {
  const now = Date.parse("2026-11-30T12:00:00Z");
  const batch = (status: string, pending: number, liveWorkers: number, finishedAt: string | null) =>
    ({ status, counts: counts({ pending }), liveWorkers, finishedAt }) as Parameters<typeof isLive>[0];
  it("watches a batch until it has ended and its items in flight are counted", () => {
    expect(isLive(batch("running", 5, 1, null), now)).toBe(true);
    expect(isLive(batch("paused", 5, 0, null), now)).toBe(true);
    expect(isLive(batch("cancelled", 2, 1, "2026-11-30T11:59:50Z"), now)).toBe(true);
    expect(isLive(batch("cancelled", 0, 1, "2026-11-30T11:59:50Z"), now)).toBe(false);
  });
  it("stops when nothing can count the rest: no worker alive, or long after the end", () => {
    expect(isLive(batch("cancelled", 2, 0, "2026-11-30T11:59:50Z"), now)).toBe(false);
    expect(isLive(batch("failed", 2, 1, "2026-11-30T11:50:00Z"), now)).toBe(false);
  });
});

describe("averageRate", () => {
  const start = new Date("2026-11-30T12:00:00Z");
  it("divides what was dealt with (not what was cancelled) by the time from the run's start (its first submission) to its end", () => {
    expect(averageRate(counts({ applied: 900, dropped: 50, poison: 50, cancelled: 500 }), start, new Date("2026-11-30T12:00:10Z"))).toBe(
      100,
    );
  });
  it("has no figure before the end, without a start, or when nothing was dealt with", () => {
    expect(averageRate(counts({ applied: 10 }), start, null)).toBeNull();
    expect(averageRate(counts({ applied: 10 }), null, start)).toBeNull();
    expect(averageRate(counts({ cancelled: 10 }), start, new Date("2026-11-30T12:00:01Z"))).toBeNull();
    expect(averageRate(counts({ applied: 10 }), start, start)).toBeNull();
  });
});
