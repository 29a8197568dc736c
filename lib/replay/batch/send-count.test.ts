import { describe, expect, it } from "vitest";
import { sendsOf } from "./send-count";

describe("sendsOf", () => {
  it("counts the settling or refused send on top of the retried ones", () => {
    expect(sendsOf({ status: "applied", attempts: 0, submittedAt: "2026-11-30T00:00:00Z" })).toBe(1);
    expect(sendsOf({ status: "applied", attempts: 2, submittedAt: "2026-11-30T00:00:00Z" })).toBe(3);
    expect(sendsOf({ status: "failed", attempts: 0, submittedAt: "2026-11-30T00:00:00Z" })).toBe(1);
    expect(sendsOf({ status: "retry", attempts: 1, submittedAt: "2026-11-30T00:00:00Z" })).toBe(1);
    expect(sendsOf({ status: "poison", attempts: 3, submittedAt: "2026-11-30T00:00:00Z" })).toBe(3);
  });

  it("counts nothing for what was never sent", () => {
    expect(sendsOf({ status: "deduped", attempts: 0, submittedAt: null })).toBe(0);
    expect(sendsOf({ status: "dropped", attempts: 0, submittedAt: null })).toBe(0);
    expect(sendsOf({ status: "pending", attempts: 0, submittedAt: null })).toBe(0);
  });
});
