import { describe, expect, it } from "vitest";
import { isUtcMicrosText, utcMicrosSql } from "./instant";

describe("UTC microsecond texts", () => {
  it("accept the six-digit form and Date's three-digit one, of real instants only", () => {
    expect(isUtcMicrosText("2024-01-01T00:00:00.123456Z")).toBe(true);
    expect(isUtcMicrosText("2024-01-01T00:00:00.123Z")).toBe(true);
    expect(isUtcMicrosText("2026-02-30T00:00:00.000000Z")).toBe(false);
    expect(isUtcMicrosText("2024-01-01T00:00:00.1234Z")).toBe(false);
    expect(isUtcMicrosText("2024-01-01T00:00:00Z")).toBe(false);
    expect(isUtcMicrosText("0000-01-01T00:00:00.000000Z")).toBe(false);
  });

  it("are written by to_char in UTC with six fraction digits", () => {
    expect(utcMicrosSql("d.observed_at")).toBe(`to_char(d.observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);
  });
});
