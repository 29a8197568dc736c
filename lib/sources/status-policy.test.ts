import { describe, expect, it } from "vitest";
import { statusAsksBroker } from "./status-policy";

describe("statusAsksBroker", () => {
  const now = new Date("2026-12-06T12:00:00Z");

  it("never for a read role: it answers from the recorded state", () => {
    expect(statusAsksBroker(false, { nextAttemptAt: null }, now)).toBe(false);
  });

  it("for someone who manages sources, unless the source is backing off", () => {
    expect(statusAsksBroker(true, { nextAttemptAt: null }, now)).toBe(true);
    expect(statusAsksBroker(true, { nextAttemptAt: "2026-12-06T11:59:59Z" }, now)).toBe(true);
    expect(statusAsksBroker(true, { nextAttemptAt: "2026-12-06T12:00:30Z" }, now)).toBe(false);
  });
});
