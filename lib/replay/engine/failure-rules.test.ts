import { describe, expect, it } from "vitest";
import { failureVerdict, MAX_LEASE_LOSSES, poisonReason, recordEffect, type RecordState } from "./failure-rules";
import type { ItemStatus } from "../batch/batch-schemas";
import { availableActions, nextStatus } from "../batch/batch-states";

const now = new Date("2026-11-29T12:00:00Z");
const spatial: RecordState = {
  kind: "spatial",
  status: "approved",
  failureCount: 1,
  replayCount: 0,
  failureClass: "transient",
  classReason: null,
};

describe("poison check", () => {
  it("stops records replayed too often and records that keep killing workers", () => {
    expect(poisonReason({ replayCount: 2, leaseLosses: 0 }, 3)).toBeNull();
    expect(poisonReason({ replayCount: 3, leaseLosses: 0 }, 3)).toBe("replayed 3 times (the batch allows 3)");
    expect(poisonReason({ replayCount: 0, leaseLosses: MAX_LEASE_LOSSES }, 3)).toMatch(/worker died/);
  });
});

describe("self-pause", () => {
  const window = (failures: number, ok: number): ItemStatus[] => [...Array(failures).fill("retry"), ...Array(ok).fill("applied")];

  it("pauses when the failure share passes the threshold", () => {
    const v = failureVerdict(window(51, 49), 0.5);
    expect(v.pause).toBe(true);
    expect(v.reason).toBe("paused automatically: 51 of the last 100 submitted items failed (51%, threshold 50%)");
    expect(failureVerdict(window(50, 50), 0.5).pause).toBe(false);
  });

  it("needs a minimum sample and ignores items in flight", () => {
    expect(failureVerdict(window(10, 0), 0.5).pause).toBe(false);
    expect(failureVerdict([...Array(30).fill("running"), ...window(15, 0)] as ItemStatus[], 0.5).pause).toBe(false);
  });

  it("looks at the last 100 only", () => {
    expect(failureVerdict([...window(0, 100), ...window(500, 0)], 0.5).pause).toBe(false);
  });
});

describe("what an outcome does to the record", () => {
  it("settles applied and deduped records as replayed", () => {
    expect(recordEffect(spatial, "applied", { reason: null, submitted: true, now })).toMatchObject({
      status: "replayed",
      replayCount: 1,
      attempt: null,
    });
    expect(recordEffect(spatial, "deduped", { reason: null, submitted: false, now })).toMatchObject({ status: "replayed", replayCount: 0 });
  });

  it("sends dropped and failed records back to triage with the reason in their history", () => {
    const dropped = recordEffect(spatial, "dropped", { reason: "geometry: empty", submitted: false, now });
    expect(dropped).toMatchObject({
      status: "pending",
      failureCount: 2,
      reason: "geometry: empty",
      attempt: { attempt: 2, reason: "geometry: empty" },
    });
    const failed = recordEffect(spatial, "failed", { reason: "HTTP 422", submitted: true, now });
    expect(failed).toMatchObject({ status: "pending", replayCount: 1, failureCount: 2 });
  });

  it("quarantines poison with the reason", () => {
    const p = recordEffect(spatial, "poison", { reason: "after 5 attempts: HTTP 500", submitted: true, now });
    expect(p).toMatchObject({
      status: "quarantined",
      failureClass: "poison",
      classReason: "after 5 attempts: HTTP 500",
      replayCount: 1,
      attempt: { attempt: 2 },
    });
  });

  it("quarantines a failure that exhausts the record's replay budget", () => {
    const worn = { ...spatial, replayCount: 2 };
    expect(recordEffect(worn, "failed", { reason: "HTTP 400", submitted: true, now })).toMatchObject({
      status: "quarantined",
      failureClass: "poison",
    });
  });
});

describe("batch life cycle", () => {
  it("allows only the documented transitions", () => {
    expect(nextStatus("draft", "approve")).toBe("approved");
    expect(nextStatus("draft", "start")).toBeNull();
    expect(nextStatus("running", "pause")).toBe("paused");
    expect(nextStatus("paused", "resume")).toBe("running");
    expect(nextStatus("completed", "cancel")).toBeNull();
  });

  it("offers approve only to a different supervisor", () => {
    const sup = { canManage: true, canApprove: true };
    expect(availableActions("draft", { ...sup, isCreator: true })).toEqual(["cancel"]);
    expect(availableActions("draft", { ...sup, isCreator: false })).toEqual(["approve", "cancel"]);
    expect(availableActions("running", { canManage: false, canApprove: false, isCreator: false })).toEqual([]);
  });
});
