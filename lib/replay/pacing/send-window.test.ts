import { describe, expect, it } from "vitest";
import { SendWindow, windowCap } from "./send-window";

/** The most submissions any 1-s window [t, t + 1000) holds. */
function worstWindow(times: number[]): number {
  let worst = 0;
  for (let lo = 0, hi = 0; hi < times.length; hi++) {
    while ((times[hi] as number) - (times[lo] as number) >= 1000) lo++;
    worst = Math.max(worst, hi - lo + 1);
  }
  return worst;
}

describe("windowCap", () => {
  it("is 110% of the rate, rounded down, at least one", () => {
    expect([0.5, 1, 5, 9, 10, 19, 20, 100, 1000].map(windowCap)).toEqual([1, 1, 5, 9, 11, 20, 22, 110, 1100]);
  });
});

describe("SendWindow", () => {
  it("holds a submission that would put more than the cap in a window, after a late one", () => {
    // 5/s: slots every 200 ms; the first submission went 30 ms late, the rest on time.
    const w = new SendWindow(windowCap(5));
    const sent: number[] = [];
    for (let i = 0; i < 20; i++) {
      const slot = i * 200 + (i === 0 ? 30 : 0);
      const at = slot + w.waitMs(slot);
      w.record(at);
      sent.push(at);
    }
    expect(worstWindow(sent)).toBe(5);
    // Unguarded, the same schedule puts 6 in a window.
    expect(worstWindow(Array.from({ length: 20 }, (_, i) => i * 200 + (i === 0 ? 30 : 0)))).toBe(6);
    // The submission that needed it waited by the lateness it made up for plus the margin; later ones by the margin.
    expect(sent.slice(0, 7)).toEqual([30, 200, 400, 600, 800, 1040, 1210]); // + MARGIN_MS
  });

  it("never waits while fewer than cap submissions were made", () => {
    const w = new SendWindow(3);
    w.record(0);
    w.record(1);
    expect(w.waitMs(2)).toBe(0);
    w.record(2);
    expect(w.waitMs(2)).toBe(1008);
    expect(w.waitMs(1009)).toBe(1);
    expect(w.waitMs(1010)).toBe(0);
  });
});
