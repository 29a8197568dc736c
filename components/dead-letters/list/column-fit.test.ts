import { describe, expect, it } from "vitest";
import { hiddenColumns, minRem } from "./column-fit";

const COLUMNS = [
  { id: "select", width: "2rem" },
  { id: "kind", width: "4.25rem" },
  { id: "source", width: "6.75rem" },
  { id: "idempotencyKey", width: "7.75rem" },
  { id: "reason", width: "minmax(8rem, 1fr)" },
  { id: "failureClass", width: "8.5rem" },
  { id: "status", width: "5.75rem" },
  { id: "observedAt", width: "8.5rem" },
  { id: "replayCount", width: "4.5rem" },
];

describe("hiddenColumns", () => {
  it("reads the minimum of a track", () => {
    expect(minRem("8.5rem")).toBe(8.5);
    expect(minRem("minmax(8rem, 1fr)")).toBe(8);
    expect(minRem("1fr")).toBe(0);
  });

  it("hides nothing when everything fits or before the table is measured", () => {
    expect(hiddenColumns(COLUMNS, 1200, 16).size).toBe(0);
    expect(hiddenColumns(COLUMNS, null, 16).size).toBe(0);
  });

  it("drops the least useful columns first until the rest fit, never the key, reason or class", () => {
    // 56 rem = 896 px in all; the table of an 800 px window is ~498 px wide
    expect([...hiddenColumns(COLUMNS, 860, 16)]).toEqual(["replayCount"]);
    expect([...hiddenColumns(COLUMNS, 498, 16)]).toEqual(["replayCount", "source", "observedAt", "status"]);
    expect([...hiddenColumns(COLUMNS, 200, 16)]).toEqual(["replayCount", "source", "observedAt", "status"]);
  });
});
