import { describe, expect, it } from "vitest";
import { applyRepeatFailure, type RepeatState } from "./repeat-failure";

const at = new Date("2026-01-01T00:00:00Z");
const afc: RepeatState = {
  kind: "afc",
  failureCount: 1,
  replayCount: 0,
  failureClass: "transient_schema",
  classReason: null,
  status: "pending",
};

describe("applyRepeatFailure", () => {
  it("counts AFC failures and turns poison when retries reach the budget", () => {
    const second = applyRepeatFailure(afc, { reason: "r2", at });
    expect(second).toMatchObject({ failureCount: 2, failureClass: "transient_schema", status: "pending", reason: "r2" });
    const third = applyRepeatFailure(second, { reason: "r3", at });
    expect(third.failureClass).toBe("transient_schema");
    const fourth = applyRepeatFailure(third, {
      reason: "fare_amount_cents: Expected integer, received string; battery_pct: Unrecognized key",
      at,
    });
    expect(fourth).toMatchObject({
      failureCount: 4,
      failureClass: "poison",
      classReason: "exhausted retries: 2 errors",
      status: "quarantined",
      reason: "exhausted retries: 2 errors",
    });
  });

  it("honours a smaller budget", () => {
    expect(applyRepeatFailure(afc, { reason: "again", at }, 1)).toMatchObject({
      failureClass: "poison",
      classReason: "exhausted retries: 1 errors",
    });
  });

  it("keeps poison terminal and keeps a replayed record's status", () => {
    const poison: RepeatState = { ...afc, failureClass: "poison", classReason: "missing event_id", status: "quarantined" };
    expect(applyRepeatFailure(poison, { reason: "x", at })).toMatchObject({ classReason: "missing event_id", reason: "x" });
    const replayed: RepeatState = { ...afc, status: "replayed" };
    expect(applyRepeatFailure(replayed, { reason: "x", at }).status).toBe("replayed");
  });

  it("makes a spatial record poison once replayed MAX_REPLAYS times", () => {
    const spatial: RepeatState = { ...afc, kind: "spatial", failureClass: "transient" };
    expect(applyRepeatFailure(spatial, { reason: "503", at, replayCount: 2 }).failureClass).toBe("transient");
    expect(applyRepeatFailure(spatial, { reason: "503", at, replayCount: 3 })).toMatchObject({
      failureClass: "poison",
      classReason: "replayed 3 times",
      status: "quarantined",
    });
  });
});
