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
  const at = (s: number) => new Date(Date.parse("2026-11-30T12:00:00Z") + s * 1000);
  it("counts n paced submissions as n - 1 intervals: 5 sends 0.5 s apart are 2/s, not 2.5/s", () => {
    // The target's applied_at 0.5 s apart at a configured 2/s; the batch ends a commit after the last send.
    expect(averageRate({ submitted: 5, firstAt: at(0), lastAt: at(2) }, at(2.03))).toBe(2);
    expect(averageRate({ submitted: 1001, firstAt: at(0), lastAt: at(10) }, at(10.5))).toBe(100);
  });
  it("keeps the pauses in the span (the whole run)", () => {
    // 3 sends at 1/s, a 7-s pause, 3 more at 1/s: 5 intervals over 12 s.
    expect(averageRate({ submitted: 6, firstAt: at(0), lastAt: at(12) }, at(12))).toBeCloseTo(5 / 12, 12);
  });
  it("falls back to first send → end when the sends share one instant", () => {
    expect(averageRate({ submitted: 60, firstAt: at(0), lastAt: at(0) }, at(0.5))).toBe(120);
    expect(averageRate({ submitted: 1, firstAt: at(0), lastAt: at(0) }, at(0.25))).toBe(4);
  });
  it("has no figure before the end, or when nothing was sent", () => {
    expect(averageRate({ submitted: 10, firstAt: at(0), lastAt: at(5) }, null)).toBeNull();
    expect(averageRate({ submitted: 0, firstAt: null, lastAt: null }, at(1))).toBeNull();
    expect(averageRate({ submitted: 1, firstAt: at(0), lastAt: at(0) }, at(0))).toBeNull();
  });
});
