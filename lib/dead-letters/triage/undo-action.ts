import type { ApprovedRepair, DeadLetterStatus } from "../../vocabulary/record";
import type { ActionBody } from "../contract/decision";

// The undo a decision's toast offers: the inverse decision, sent through the same versioned action as any other
// (so it is audited, and refused with a 409 when someone acted on the record in between). Pure and client-safe.

export type UndoableAction = "approve" | "quarantine" | "reopen";

/** How long the toast offers the undo. */
export const UNDO_WINDOW_MS = 10_000;

/**
 * The action that takes the record back to `from`, to send with the version the decision produced; null when no
 * single action does. Quarantining an approved record is not undone: going back to approved is a new approval
 * (reopen, then approve with its repair pinned), which the analyst makes on the record's page.
 */
export function undoBody(
  done: { action: UndoableAction; from: DeadLetterStatus; approvedRepair?: ApprovedRepair | null },
  version: number,
): ActionBody | null {
  const reason = `undo of ${done.action}`;
  switch (done.action) {
    case "approve":
      return done.from === "pending" ? { action: "reopen", version, reason } : null;
    case "quarantine":
      return done.from === "pending" ? { action: "reopen", version, reason } : null;
    case "reopen":
      if (done.from === "quarantined") return { action: "quarantine", version, reason };
      // Approved again with the repair the reopened approval had pinned (same digest: the payload did not change);
      // without it known, the server pins the source's default, as a plain approve does.
      if (done.from === "approved") {
        const pin = done.approvedRepair;
        if (!pin) return { action: "approve", version, reason };
        const { method, policy, digest, acknowledged } = pin;
        return {
          action: "approve",
          version,
          reason,
          repair: { method, policy, digest, ...(acknowledged?.length ? { acknowledged } : {}) },
        };
      }
      return null;
  }
}
