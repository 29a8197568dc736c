import { describe, expect, it } from "vitest";
import { tapObservedAt } from "./tap-time";

describe("tapObservedAt", () => {
  it("reads an RFC 3339 tap time to the microsecond", () => {
    expect(tapObservedAt({ tap_timestamp: "2025-06-01T02:00:00.1234567+02:00" })?.exact).toBe("2025-06-01T00:00:00.123457Z");
  });

  it("reads a tap time without an offset as UTC, so the tap is ordered by it rather than by when it arrived", () => {
    expect(tapObservedAt({ tap_timestamp: "2025-06-01T00:00:00" })?.exact).toBe("2025-06-01T00:00:00.000000Z");
    expect(tapObservedAt({ tap_timestamp: "2025-06-01 00:00:00" })?.exact).toBe("2025-06-01T00:00:00.000000Z");
  });

  it("has none for a missing, unreadable or unstorable time", () => {
    for (const tap of [
      {},
      { tap_timestamp: 1748736000 },
      { tap_timestamp: "June 1st" },
      { tap_timestamp: "0000-06-01T00:00:00Z" },
      null,
      "x",
    ]) {
      expect(tapObservedAt(tap)).toBeNull();
    }
  });
});
