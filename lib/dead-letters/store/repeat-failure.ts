import { MAX_RETRIES, recordFailure } from "../../afc/classify";
import type { DeadLetterKind, FailureClass } from "../../vocabulary/record";
import type { DeadLetterStatus } from "@/lib/vocabulary/record";

/** Spatial records are poison once replayed this many times (the pipeline's MAX_REPLAYS). */
export const MAX_REPLAYS = 3;

export interface RepeatState {
  kind: DeadLetterKind;
  failureCount: number;
  replayCount: number;
  failureClass: FailureClass;
  classReason: string | null;
  status: DeadLetterStatus;
}

export interface RepeatOutcome extends RepeatState {
  /** reason to show as the record's current reason */
  reason: string;
}

/**
 * The same key failed again (a duplicate capture, or a failed replay): one more failure on the record, never
 * a second row. AFC records become poison once their retries reach the budget ("exhausted retries: n
 * errors"); spatial records once replayed MAX_REPLAYS times. Poison records leave triage for quarantine.
 * Pure: the caller locks the row, applies this and writes the result with the failure attempt.
 */
export function applyRepeatFailure(
  state: RepeatState,
  failure: { reason: string; at: Date; replayCount?: number },
  maxRetries = MAX_RETRIES,
): RepeatOutcome {
  const replayCount = Math.max(state.replayCount, failure.replayCount ?? 0);
  let failureClass = state.failureClass;
  let classReason = state.classReason;
  if (state.kind === "afc") {
    const next = recordFailure(
      {
        firstReason: "(stored)",
        history: [],
        retryCount: state.failureCount - 1,
        failureClass: failureClass === "poison" ? "poison" : "transient_schema",
        classReason,
      },
      failure,
      maxRetries,
    );
    failureClass = next.failureClass;
    classReason = next.classReason;
  } else if (failureClass !== "poison" && replayCount >= MAX_REPLAYS) {
    failureClass = "poison";
    classReason = `replayed ${replayCount} times`;
  }
  const becamePoison = failureClass === "poison" && state.failureClass !== "poison";
  const status = becamePoison && (state.status === "pending" || state.status === "approved") ? "quarantined" : state.status;
  return {
    kind: state.kind,
    failureCount: state.failureCount + 1,
    replayCount,
    failureClass,
    classReason,
    status,
    reason: becamePoison && classReason ? classReason : failure.reason,
  };
}
