import { describe, expect, it } from "vitest";
import { actionToast, availableActions, singleApproverAllowed } from "./batch-states";

describe("actionToast", () => {
  it("says what happened as a sentence", () => {
    expect(actionToast("1", "cancel")).toBe("Batch 1 cancelled.");
    expect(actionToast("7", "approve")).toBe("Batch 7 approved.");
    expect(actionToast("7", "pause")).toBe("Batch 7 paused.");
    expect(actionToast("7", "resume")).toBe("Batch 7 resumed.");
    expect(actionToast("7", "start")).toBe("Batch 7 started.");
  });
});

describe("four eyes below the admin's limit", () => {
  it("lets the creator approve only a batch within a limit above 0", () => {
    expect(singleApproverAllowed(1, 0)).toBe(false);
    expect(singleApproverAllowed(1, 1)).toBe(true);
    expect(singleApproverAllowed(2, 1)).toBe(false);
    expect(singleApproverAllowed(0, 5)).toBe(false);
  });
  it("offers Approve to the creator only when allowed", () => {
    const opts = { canManage: true, canApprove: true, isCreator: true };
    expect(availableActions("draft", opts)).toEqual(["cancel"]);
    expect(availableActions("draft", { ...opts, selfApprove: true })).toEqual(["approve", "cancel"]);
    expect(availableActions("draft", { ...opts, isCreator: false })).toEqual(["approve", "cancel"]);
  });
});
