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
 * The same key failed again (a duplicate from the record's own sender, or a failed replay): one more failure on
 * the record, never a second row. AFC records become poison once their retries reach the budget ("exhausted retries: n
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

/** What a known key's arrival is to its stored record (see decideKnownKey). */
export type KnownKeyEffect =
  /** a re-send before any replay, by the record's own sender: one more failure (today's `duplicate`) */
  | "repeat"
  /** any arrival once the record was replayed: a new failure, and the record is back in triage */
  | "failed_again"
  /** another sender's re-send before a replay: kept in the history, the record is left as it is */
  | "noted";

export interface KnownKeyState extends RepeatState {
  /** failures in the history that changed nothing ("noted"): they spend no retry budget */
  notedFailures: number;
  /**
   * a replay of the record is in flight (an item sent or being sent, its outcome not yet written): the record is
   * still `approved`, but the consumer may already have rejected what was replayed
   */
  replaying?: boolean;
}

export interface KnownKeyArrival {
  reason: string;
  at: Date;
  /** the replay count the sender reports; only the record's own sender's counts */
  replayCount: number;
  /** the arrival comes from the sender that stored the record (same user; broker pulls and the CLI are one sender) */
  ownSender: boolean;
}

export interface KnownKeyDecision {
  effect: KnownKeyEffect;
  next: RepeatOutcome;
}

/**
 * What an arrival of a stored key does. Once a record is replayed (or while its replay is in flight), whoever sends its key again is reporting a new
 * failure of what was replayed (a consumer rejected it again): it returns to triage — pending, or quarantined when
 * this failure makes it poison (a spatial record replayed MAX_REPLAYS times, an AFC record out of retries) — with
 * the new reason. Before a replay, a re-send by the record's own sender is one more failure as before; a re-send
 * by anyone else changes neither status, class nor reason (nor the replay count it reports): otherwise one
 * producer could quarantine another's approved record by guessing its key. Pure; the store locks and writes.
 */
export function decideKnownKey(state: KnownKeyState, arrival: KnownKeyArrival, maxRetries = MAX_RETRIES): KnownKeyDecision {
  const { notedFailures, replaying = false, ...record } = state;
  const failure = { reason: arrival.reason, at: arrival.at, ...(arrival.ownSender ? { replayCount: arrival.replayCount } : {}) };
  // The retry budget counts the failures that counted; noted ones are added back to the history's length.
  const counted = (s: RepeatState) => {
    const next = applyRepeatFailure({ ...s, failureCount: s.failureCount - notedFailures }, failure, maxRetries);
    return { ...next, failureCount: next.failureCount + notedFailures };
  };
  // In flight counts as replayed: a consumer can reject the replay and its death arrive before the engine writes
  // the outcome, which then leaves a record that is no longer approved as it is (record-effects.ts).
  if (record.status === "replayed" || (replaying && record.status === "approved")) {
    const next = counted(record);
    return { effect: "failed_again", next: { ...next, status: next.failureClass === "poison" ? "quarantined" : "pending" } };
  }
  if (!arrival.ownSender) {
    return { effect: "noted", next: { ...record, failureCount: record.failureCount + 1, reason: arrival.reason } };
  }
  return { effect: "repeat", next: counted(record) };
}
