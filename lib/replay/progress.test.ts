import { describe, expect, it } from "vitest";
import { progressText } from "./progress";

const counts = (c: Partial<Record<"applied" | "deduped" | "dropped" | "poison" | "failed" | "cancelled" | "pending", number>>) =>
  ({ applied: 0, deduped: 0, dropped: 0, poison: 0, failed: 0, cancelled: 0, pending: 0, ...c });

describe("progressText", () => {
  it("counts what was dealt with and says the cancelled apart", () => {
    expect(progressText(25, counts({ applied: 10, cancelled: 15 }))).toBe("10 / 25 · 15 cancelled");
    expect(progressText(37, counts({ cancelled: 37 }))).toBe("0 / 37 · 37 cancelled");
    expect(progressText(5, counts({ applied: 2, deduped: 1, dropped: 1, poison: 1 }))).toBe("5 / 5");
    expect(progressText(1200, counts({ applied: 1000, pending: 200 }), (n) => n.toLocaleString("en"))).toBe("1,000 / 1,200");
  });
});
