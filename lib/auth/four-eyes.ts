import { AppError } from "../errors/app-error";
import type { Principal } from "./principal";

// Four-eyes principle for replays: whoever assembled a batch cannot also release it. Call it inside the
// approving transaction, on the batch row read there (FOR UPDATE), not on a copy read before it.

export function assertFourEyes(batch: { createdById: string }, principal: Pick<Principal, "userId">): void {
  if (batch.createdById === principal.userId) {
    throw new AppError("forbidden", "four-eyes: a replay batch cannot be approved by the person who created it; ask another supervisor", {
      details: { rule: "four_eyes" },
    });
  }
}
