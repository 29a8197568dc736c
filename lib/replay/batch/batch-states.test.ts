import { describe, expect, it } from "vitest";
import { actionToast } from "./batch-states";

describe("actionToast", () => {
  it("says what happened as a sentence", () => {
    expect(actionToast("1", "cancel")).toBe("Batch 1 cancelled.");
    expect(actionToast("7", "approve")).toBe("Batch 7 approved.");
    expect(actionToast("7", "pause")).toBe("Batch 7 paused.");
    expect(actionToast("7", "resume")).toBe("Batch 7 resumed.");
    expect(actionToast("7", "start")).toBe("Batch 7 started.");
  });
});
