import { describe, expect, it } from "vitest";
import { compactNumber } from "./compact-number";

describe("compactNumber", () => {
  it("keeps axis labels to a few characters whatever the magnitude", () => {
    expect([0, 900, 12_500, 110_000, 220_000, 1_000_000, 8_300].map(compactNumber)).toEqual([
      "0",
      "900",
      "12.5K",
      "110K",
      "220K",
      "1M",
      "8.3K",
    ]);
  });
});
