import { describe, expect, it } from "vitest";
import { epochSecondsSchema, isRfc3339, parseProducerInstant, parseProducerTime } from "./parse-time";

describe("isRfc3339 (offset required)", () => {
  it.each(["2024-05-01T08:30:00Z", "2024-05-01t08:30:00z", "2024-05-01T08:30:00.123+02:00", "2024-05-01t08:30:00-05:00"])(
    "accepts %s",
    (s) => {
      expect(isRfc3339(s)).toBe(true);
    },
  );
  it.each([
    "2024-05-01 08:30:00Z",
    "2024-05-01T08:30:00",
    "2024-05-01",
    "2023-02-29T00:00:00Z",
    "2024-05-01T08:30Z",
    "yesterday",
    "2024-05-01x08:30:00Z",
    "",
  ])("rejects %j", (s) => {
    expect(isRfc3339(s)).toBe(false);
  });
});

describe("parseProducerTime", () => {
  it.each([
    ["2024-05-01T08:30:00Z", "2024-05-01T08:30:00.000Z"],
    ["2024-05-01t08:30:00z", "2024-05-01T08:30:00.000Z"],
    ["2024-05-01 10:30:00+02:00", "2024-05-01T08:30:00.000Z"],
    ["2024-05-01 08:30:00.123456", "2024-05-01T08:30:00.123Z"],
    ["2024-05-01T08:30:00", "2024-05-01T08:30:00.000Z"],
  ])("%s → %s", (s, iso) => {
    expect(parseProducerTime(s)?.toISOString()).toBe(iso);
  });
  it.each(["2024-05-01 08:00", "2024-02-30T00:00:00Z", "yesterday", "1714552200", "2024-05-01  08:30:00Z"])("rejects %j", (s) => {
    expect(parseProducerTime(s)).toBeNull();
  });
});

describe("parseProducerInstant keeps the microsecond, as PostgreSQL stores it", () => {
  it.each([
    ["2024-01-01T00:00:00.123456Z", "2024-01-01T00:00:00.123456Z", "2024-01-01T00:00:00.123Z"],
    ["2024-01-01T00:00:00.000001Z", "2024-01-01T00:00:00.000001Z", "2024-01-01T00:00:00.000Z"],
    ["2024-01-01T05:30:00.5+05:30", "2024-01-01T00:00:00.500000Z", "2024-01-01T00:00:00.500Z"],
    ["2024-01-01 00:00:00.1234564", "2024-01-01T00:00:00.123456Z", "2024-01-01T00:00:00.123Z"],
    // half to even, as PostgreSQL: .1234565 → .123456, .1234575 → .123458, .12345650001 → .123457
    ["2024-01-01T00:00:00.1234565Z", "2024-01-01T00:00:00.123456Z", "2024-01-01T00:00:00.123Z"],
    ["2024-01-01T00:00:00.1234575Z", "2024-01-01T00:00:00.123458Z", "2024-01-01T00:00:00.123Z"],
    ["2024-01-01T00:00:00.12345650001Z", "2024-01-01T00:00:00.123457Z", "2024-01-01T00:00:00.123Z"],
    // past the microsecond the text rounds, as PostgreSQL rounds it, carrying into the second and the year
    ["2024-12-31T23:59:59.9999996Z", "2025-01-01T00:00:00.000000Z", "2025-01-01T00:00:00.000Z"],
    ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.000000Z", "2024-01-01T00:00:00.000Z"],
  ])("%s → %s", (text, exact, ms) => {
    const instant = parseProducerInstant(text);
    expect(instant?.exact).toBe(exact);
    expect(instant?.date.toISOString()).toBe(ms);
  });

  it("reads epoch seconds to the microsecond, rounding the same way for fractions a double holds", () => {
    expect(epochSecondsSchema.parse(1700000000.123456)).toEqual({
      date: new Date("2023-11-14T22:13:20.123Z"),
      exact: "2023-11-14T22:13:20.123456Z",
    });
    expect(epochSecondsSchema.parse(1700000000.999999).exact).toBe("2023-11-14T22:13:20.999999Z");
    expect(epochSecondsSchema.parse(1700000000).exact).toBe("2023-11-14T22:13:20.000000Z");
    expect(epochSecondsSchema.parse(0.0000015).exact).toBe("1970-01-01T00:00:00.000002Z");
  });
});
