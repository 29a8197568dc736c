import { describe, expect, it } from "vitest";
import { effectiveThrottle, MIN_THROTTLE, throttleDown } from "./throttle";

const at = (ms: number) => new Date(1_000_000 + ms);

describe("throttle", () => {
  it("halves on a slow-down signal and recovers linearly", () => {
    const s = throttleDown({ throttle: 1, throttledAt: null }, at(0));
    expect(s.throttle).toBe(0.5);
    expect(effectiveThrottle(s, at(0))).toBe(0.5);
    expect(effectiveThrottle(s, at(2000))).toBeCloseTo(0.7);
    expect(effectiveThrottle(s, at(60_000))).toBe(1);
  });

  it("counts signals within a second as one", () => {
    const s = throttleDown({ throttle: 1, throttledAt: null }, at(0));
    expect(throttleDown(s, at(500))).toBe(s);
    expect(throttleDown(s, at(1000)).throttle).toBeCloseTo(0.3); // (0.5 + 0.1) / 2
  });

  it("never goes below the floor", () => {
    let s = { throttle: 1, throttledAt: null as Date | null };
    for (let i = 0; i < 20; i++) s = throttleDown(s, at(i * 1000));
    expect(s.throttle).toBeGreaterThanOrEqual(MIN_THROTTLE);
  });
});
