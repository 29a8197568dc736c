import { describe, expect, it } from "vitest";
import { bucketRange, bucketStart, fillSeries } from "./series";

describe("series", () => {
  const now = new Date("2026-11-29T21:43:04Z");
  it("buckets by UTC hour and day", () => {
    expect(new Date(bucketStart(now, "hour")).toISOString()).toBe("2026-11-29T21:00:00.000Z");
    expect(new Date(bucketStart(now, "day")).toISOString()).toBe("2026-11-29T00:00:00.000Z");
  });
  it("zero-fills the range, oldest first", () => {
    const range = bucketRange(now, "hour", 3);
    expect(range.map((t) => new Date(t).toISOString().slice(11, 13))).toEqual(["19", "20", "21"]);
    expect(fillSeries(range, [{ at: range[1]!, arrivals: 5, poison: 2 }])).toEqual([
      { at: "2026-11-29T19:00:00.000Z", arrivals: 0, poison: 0 },
      { at: "2026-11-29T20:00:00.000Z", arrivals: 5, poison: 2 },
      { at: "2026-11-29T21:00:00.000Z", arrivals: 0, poison: 0 },
    ]);
  });
});
