import { describe, expect, it } from "vitest";
import { isUtcMicrosText, utcMicrosOfDate } from "./instant";

describe("UTC microsecond texts", () => {
  it("accept the six-digit form and Date's three-digit one, of real instants only", () => {
    expect(isUtcMicrosText("2024-01-01T00:00:00.123456Z")).toBe(true);
    expect(isUtcMicrosText("2024-01-01T00:00:00.123Z")).toBe(true);
    expect(isUtcMicrosText("2026-02-30T00:00:00.000000Z")).toBe(false);
    expect(isUtcMicrosText("2024-01-01T00:00:00.1234Z")).toBe(false);
    expect(isUtcMicrosText("2024-01-01T00:00:00Z")).toBe(false);
    expect(isUtcMicrosText("0000-01-01T00:00:00.000000Z")).toBe(false);
  });

  it("write a Date with six fraction digits", () => {
    expect(utcMicrosOfDate(new Date("2024-01-01T00:00:00.123Z"))).toBe("2024-01-01T00:00:00.123000Z");
  });
});
