import { describe, expect, it } from "vitest";
import { ThrottleAuditGate } from "./throttle-audit";

describe("ThrottleAuditGate", () => {
  it("admits an address once per window", () => {
    const gate = new ThrottleAuditGate(60_000);
    expect(gate.admit("10.0.0.1", 1_000)).toBe(true);
    expect(gate.admit("10.0.0.1", 30_000)).toBe(false);
    expect(gate.admit("10.0.0.2", 30_000)).toBe(true);
    expect(gate.admit("10.0.0.1", 60_999)).toBe(false);
    expect(gate.admit("10.0.0.1", 61_000)).toBe(true);
    expect(gate.admit("10.0.0.1", 62_000)).toBe(false);
  });

  it("remembers a bounded number of addresses, forgetting the oldest first", () => {
    const gate = new ThrottleAuditGate(60_000, 2);
    expect(gate.admit("a", 0)).toBe(true);
    expect(gate.admit("b", 1)).toBe(true);
    expect(gate.admit("c", 2)).toBe(true); // forgets a
    expect(gate.admit("b", 3)).toBe(false);
    expect(gate.admit("a", 4)).toBe(true); // forgotten, so audited again; forgets b, the longest since audited
    expect(gate.admit("c", 5)).toBe(false);
    expect(gate.admit("b", 6)).toBe(true);
  });
});
