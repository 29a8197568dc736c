import { describe, expect, it } from "vitest";
import { isRfc3339, parseProducerTime } from "./timestamps";

describe("isRfc3339 (offset required)", () => {
  it.each(["2024-05-01T08:30:00Z", "2024-05-01t08:30:00z", "2024-05-01T08:30:00.123+02:00", "2024-05-01t08:30:00-05:00"])("accepts %s", (s) => {
    expect(isRfc3339(s)).toBe(true);
  });
  it.each(["2024-05-01 08:30:00Z", "2024-05-01T08:30:00", "2024-05-01", "2023-02-29T00:00:00Z", "2024-05-01T08:30Z", "yesterday", "2024-05-01x08:30:00Z", ""])(
    "rejects %j",
    (s) => {
      expect(isRfc3339(s)).toBe(false);
    },
  );
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
