import { describe, expect, it } from "vitest";
import { toDateTimeLocal } from "./parse-time";

describe("times for datetime-local inputs", () => {
  it("prefills only real times, read as UTC", () => {
    expect(toDateTimeLocal("2026-11-05T08:00:00.000Z")).toBe("2026-11-05T08:00");
    expect(toDateTimeLocal("2026-11-05T08:00:00+01:00")).toBe("2026-11-05T07:00");
    expect(toDateTimeLocal("2026-11-05T08:00")).toBe("2026-11-05T08:00");
    expect(toDateTimeLocal("2026-02-30")).toBe("");
    expect(toDateTimeLocal("garbage")).toBe("");
    expect(toDateTimeLocal("+275760-09-13T00:00:00Z")).toBe("");
    expect(toDateTimeLocal("")).toBe("");
  });
});
