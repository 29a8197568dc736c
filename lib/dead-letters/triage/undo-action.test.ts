import { describe, expect, it } from "vitest";
import { ActionBodySchema } from "../contract/decision";
import { decide } from "../decisions";
import { undoBody } from "./undo-action";
import type { ApprovedRepair } from "../../vocabulary/record";

describe("undoBody", () => {
  it("undoes approve and quarantine from pending with reopen, at the version the decision produced", () => {
    expect(undoBody({ action: "approve", from: "pending" }, 4)).toEqual({ action: "reopen", version: 4, reason: "undo of approve" });
    expect(undoBody({ action: "quarantine", from: "pending" }, 7)).toEqual({ action: "reopen", version: 7, reason: "undo of quarantine" });
  });

  it("undoes reopen back to where the record was", () => {
    expect(undoBody({ action: "reopen", from: "quarantined" }, 3)).toEqual({ action: "quarantine", version: 3, reason: "undo of reopen" });
    expect(undoBody({ action: "reopen", from: "approved" }, 3)).toEqual({ action: "approve", version: 3, reason: "undo of reopen" });
  });

  it("re-pins the repair the reopened approval had", () => {
    const pin: ApprovedRepair = {
      method: "structure",
      policy: "accept",
      digest: "a".repeat(64),
      outcome: "repaired",
      acknowledged: ["Area −40%"],
    };
    const body = undoBody({ action: "reopen", from: "approved", approvedRepair: pin }, 9);
    expect(body).toEqual({
      action: "approve",
      version: 9,
      reason: "undo of reopen",
      repair: { method: "structure", policy: "accept", digest: "a".repeat(64), acknowledged: ["Area −40%"] },
    });
    expect(ActionBodySchema.safeParse(body).success).toBe(true);
  });

  it("offers no undo when no single action goes back", () => {
    expect(undoBody({ action: "quarantine", from: "approved" }, 2)).toBeNull();
    expect(undoBody({ action: "approve", from: "replayed" }, 2)).toBeNull();
  });

  it("every undo is a valid action body the state machine allows from where the decision left the record", () => {
    const cases = [
      { action: "approve", from: "pending", now: "approved" },
      { action: "quarantine", from: "pending", now: "quarantined" },
      { action: "reopen", from: "quarantined", now: "pending" },
      { action: "reopen", from: "approved", now: "pending" },
    ] as const;
    for (const c of cases) {
      const body = undoBody(c, 5)!;
      expect(ActionBodySchema.safeParse(body).success).toBe(true);
      const back = decide({ status: c.now, failureClass: "transient", classReason: null }, body.action, { reason: body.reason });
      expect(back).toEqual({ ok: true, next: c.from });
    }
  });
});
