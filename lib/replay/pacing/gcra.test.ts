import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../tests/support/seeded-random";
import { claimSizeFor, grantSlots, isUnpaced, lateLimitMs, pacingFor, slotOffsets, type GcraParams } from "./gcra";

const P = (rate: number, over: Partial<GcraParams> = {}): GcraParams => ({ rate, horizonMs: 250, toleranceMs: 50, minGrant: 1, ...over });

describe("grantSlots", () => {
  it("grants the slots that start within the horizon, spaced 1/rate apart", () => {
    const g = grantSlots(null, 1000, 10, P(10));
    expect(g.granted).toBe(3); // at +0, +100, +200 ms
    expect(slotOffsets(g)).toEqual([0, 100, 200]);
    expect(g.tat).toBe(1300);
  });

  it("grants nothing while the reserved schedule reaches past the horizon, and says when to ask again", () => {
    const g = grantSlots(1300, 1000, 10, P(10));
    expect(g.granted).toBe(0);
    expect(g.tat).toBe(1300);
    expect(g.retryInMs).toBe(50); // slot 1300 fits the horizon at 1050
    expect(grantSlots(1300, 1050, 10, P(10)).granted).toBe(1);
  });

  it("never grants more than requested", () => {
    expect(grantSlots(null, 0, 2, P(1000)).granted).toBe(2);
  });

  it("lets a worker that fell behind catch up by at most the tolerance", () => {
    expect(grantSlots(970, 1000, 1, P(10)).startInMs).toBe(-30);
    const late = grantSlots(500, 1000, 100, P(10));
    expect(late.startInMs).toBe(-50); // an idle batch does not bank its unused time
    expect(late.granted).toBe(4); // -50, 50, 150, 250
  });

  it("refuses fragments smaller than minGrant", () => {
    // 5 slots fit the horizon but 20 are required at once
    const g = grantSlots(1246, 1000, 100, P(1000, { minGrant: 20 }));
    expect(g.granted).toBe(0);
    expect(g.retryInMs).toBe(15); // slot 1246 + 19 ms = 1265 fits the horizon at 1015
    expect(grantSlots(1246, 1015, 100, P(1000, { minGrant: 20 })).granted).toBe(20);
  });

  it("rejects a non-positive rate", () => {
    expect(() => grantSlots(null, 0, 1, P(0))).toThrow(RangeError);
  });
});

describe("claimSizeFor", () => {
  it("claims about one horizon of work, at least 1 and at most the page", () => {
    expect(claimSizeFor(10, 100)).toBe(3);
    expect(claimSizeFor(1000, 100)).toBe(100);
    expect(claimSizeFor(0.1, 100)).toBe(1);
  });
});

/**
 * Workers that reserve slots, sleep until each (late by a random 0–8 ms, as Node timers are; now and then
 * stalled for `stallMs`, as a busy worker is) and come back for more after a little work. A slot later than
 * lateLimitMs is given up, as lib/replay/engine/process-page.ts does. Returns the emission times.
 */
function simulate(rate: number, workers: number, durationMs: number, seed: number, stallMs = 0): number[] {
  const rnd = seededRandom(seed);
  const params = pacingFor(rate);
  let tat: number | null = null;
  const emissions: number[] = [];
  const freeAt = Array.from({ length: workers }, () => rnd() * 5);
  for (;;) {
    const w = freeAt.indexOf(Math.min(...freeAt));
    const now = freeAt[w] as number;
    if (now >= durationMs) break;
    const g = grantSlots(tat, now, claimSizeFor(rate, 500), params);
    tat = g.tat;
    if (g.granted === 0) {
      freeAt[w] = now + g.retryInMs + rnd() * 2;
      continue;
    }
    let t = now;
    for (const offset of slotOffsets(g)) {
      const due = now + offset;
      t = Math.max(t, due + rnd() * 8 + (stallMs > 0 && rnd() < 1 / (2 * rate) ? rnd() * stallMs : 0)); // one stall per ~2 s
      if (t - Math.max(due, now) > lateLimitMs(params.toleranceMs)) continue;
      if (t < durationMs) emissions.push(t);
    }
    freeAt[w] = t + 1 + rnd() * 4; // commit + next claim
  }
  return emissions.sort((a, b) => a - b);
}

function worstWindow(times: number[], windowMs = 1000): number {
  let worst = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while ((times[hi] as number) - (times[lo] as number) >= windowMs) lo++;
    worst = Math.max(worst, hi - lo + 1);
  }
  return worst;
}

describe("pacing with several workers (simulated clock)", () => {
  for (const rate of [10, 100, 1000]) {
    for (const workers of [1, 4]) {
      it(`${rate}/s with ${workers} worker(s): within ±2% overall, no 1-s window over +10%`, () => {
        const seconds = rate === 10 ? 60 : 20;
        const times = simulate(rate, workers, seconds * 1000, rate * 7 + workers);
        const achieved = times.length / seconds;
        expect(Math.abs(achieved - rate) / rate).toBeLessThanOrEqual(0.02);
        expect(worstWindow(times)).toBeLessThanOrEqual(Math.floor(rate * 1.1));
      });
    }
  }
});

describe("pacing with workers that stall (simulated clock)", () => {
  for (const rate of [10, 100, 1000]) {
    for (const workers of [1, 4]) {
      it(`${rate}/s with ${workers} worker(s) stalling up to 200 ms now and then: no 1-s window over +10%`, () => {
        const seconds = rate === 10 ? 120 : 20;
        const times = simulate(rate, workers, seconds * 1000, 99 + rate + workers, 200);
        expect(worstWindow(times)).toBeLessThanOrEqual(Math.floor(rate * 1.1));
        // the stalls (~7% of the time) cost their own slots, no more
        expect(times.length / seconds).toBeGreaterThan(rate * 0.9);
      });
    }
  }
});

describe("isUnpaced", () => {
  it("is when a page's slots span at most 50 ms: the rate is a ceiling, not a pace", () => {
    expect(isUnpaced(1_000_000, 500)).toBe(true);
    expect(isUnpaced(2000, 100)).toBe(true);
    expect(isUnpaced(1999, 100)).toBe(false);
    expect(isUnpaced(1000, 100)).toBe(false);
    expect(isUnpaced(0, 100)).toBe(false);
  });
});
