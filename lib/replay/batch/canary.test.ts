import { describe, expect, it } from "vitest";
import { canaryVerdict } from "./canary";

describe("canaryVerdict", () => {
  const canary = { count: 4, maxFailureRate: 0.25 };
  it("watches until the first `count` items have an answer", () => {
    expect(canaryVerdict(["failed", "failed", "running"], canary).state).toBe("watching");
    expect(canaryVerdict(["failed", "failed", "retry", "running", "applied"], canary).state).toBe("watching");
  });
  it("trips above the failure share, counting retries, and passes at or under it", () => {
    const tripped = canaryVerdict(["applied", "retry", "failed", "applied", "applied"], canary);
    expect(tripped).toMatchObject({ state: "tripped", failures: 2, answered: 4 });
    expect(tripped.reason).toContain("2 of the first 4 items sent failed (50%, above 25%; an item waiting for its retry counts as failed)");
    expect(canaryVerdict(["applied", "deduped", "poison", "applied", "failed"], canary)).toMatchObject({ state: "passed", failures: 1 });
    expect(canaryVerdict(["dropped", "applied", "applied", "applied"], canary).state).toBe("passed");
  });
});
