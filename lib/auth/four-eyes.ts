import { AppError } from "../errors/app-error";
import type { Principal } from "./principal";

// Four-eyes principle for replays: whoever assembled a batch cannot also release it; for triage rules, whoever
// drafted a rule's version cannot also approve it. Call it inside the approving transaction, on the row read there
// (FOR UPDATE), not on a copy read before it.

export function assertFourEyes(
  batch: { createdById: string },
  principal: Pick<Principal, "userId">,
  exception?: { total: number; limit: number },
  subject = "a replay batch",
): void {
  if (batch.createdById === principal.userId) {
    const why =
      exception && exception.limit > 0
        ? ` (the admin allows one supervisor for batches of at most ${exception.limit} record${exception.limit === 1 ? "" : "s"}; this one has ${exception.total})`
        : "";
    throw new AppError("forbidden", `four-eyes: ${subject} cannot be approved by the person who created it${why}; ask another supervisor`, {
      details: { rule: "four_eyes", ...(exception ? { total: exception.total, singleApproverLimit: exception.limit } : {}) },
    });
  }
}
