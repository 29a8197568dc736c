import { describe, expect, it } from "vitest";
import { backoffMs, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelayMs } from "./backoff";
import { seededRandom } from "../../../tests/support/seeded-random";

const now = new Date("2026-11-29T12:00:00Z");

describe("backoff with jitter", () => {
  it("doubles per attempt, jittered within [cap/2, cap]", () => {
    const rnd = seededRandom(42);
    for (let attempt = 1; attempt <= 8; attempt++) {
      const cap = Math.min(300_000, 1000 * 2 ** (attempt - 1));
      for (let i = 0; i < 50; i++) {
        const d = backoffMs(attempt, rnd);
        expect(d).toBeGreaterThanOrEqual(cap / 2);
        expect(d).toBeLessThanOrEqual(cap);
      }
    }
  });

  it("is reproducible with a seed and spreads retries of the same attempt", () => {
    const a = Array.from(
      { length: 5 },
      (
        (r) => () =>
          backoffMs(3, r)
      )(seededRandom(7)),
    );
    const b = Array.from(
      { length: 5 },
      (
        (r) => () =>
          backoffMs(3, r)
      )(seededRandom(7)),
    );
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThan(1);
  });

  it("caps at maxMs", () => {
    expect(backoffMs(40, () => 0.999999)).toBeLessThanOrEqual(300_000);
  });

  it("never retries sooner than Retry-After", () => {
    expect(retryDelayMs(1, 30_000, () => 0)).toBe(30_000);
    expect(retryDelayMs(10, 1000, () => 0)).toBeGreaterThan(1000);
    expect(retryDelayMs(1, 10 * MAX_RETRY_AFTER_MS, () => 0)).toBe(MAX_RETRY_AFTER_MS);
  });
});

describe("parseRetryAfter", () => {
  it("reads delay-seconds and HTTP-dates", () => {
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("Sun, 29 Nov 2026 12:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Sun, 29 Nov 2026 11:00:00 GMT", now)).toBe(0);
  });

  it("reads the three HTTP-date forms as GMT (RFC 9110 §5.6.7), whatever the server's time zone", () => {
    const tz = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      for (const v of ["Sun, 29 Nov 2026 12:00:10 GMT", "Sunday, 29-Nov-26 12:00:10 GMT", "Sun Nov 29 12:00:10 2026"]) {
        expect(parseRetryAfter(v, now)).toBe(10_000);
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("ignores what it cannot read", () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("-1", now)).toBeNull();
  });
});
