import { validateTap } from "../../afc/tap-schema";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// Approving an AFC tap that still fails its schema is allowed (the analyst decides), but it is almost always a
// slip: the replay re-validates every tap against the same schema and drops it, and the record comes back to
// triage with that reason. Bulk approvals say how many of those they include, before and after; the record page
// says it next to Approve. Spatial records need no such warning: an irreparable geometry is poison, which the
// state machine refuses to approve.

export const TAP_FAILS_SCHEMA = "still fails the tap schema: the replay will drop it unless it is edited first";

/** The warning for approving this record as it is, or null. `payload` is the working payload. */
export function approveWarning(kind: DeadLetterKind, payload: unknown): string | null {
  if (kind !== "afc" || payload === null) return null;
  return validateTap(payload).ok ? null : TAP_FAILS_SCHEMA;
}
