// Failure classification for AFC dead letters. Pure: the clock comes in with the failure.
//   transient_schema — the tap can be fixed and replayed; its identity (event_id, device_id) is intact.
//   poison           — never replay automatically: nothing can deduplicate or trace it, or it kept failing.
import { isJsonObject, jsonTypeName } from "../json/lossless";

export type AfcFailureClass = "transient_schema" | "poison";

/** Default replay budget: a record is poison once this many retries (after the first failure) have failed. */
export const MAX_RETRIES = 3;

export interface Classification {
  failureClass: AfcFailureClass;
  /** why: e.g. "missing event_id"; null for the ordinary transient case */
  classReason: string | null;
}

const ID_FIELDS = ["event_id", "device_id"] as const;

/**
 * Classify a failed tap by its identity alone. Any id that is missing, not a string or blank makes the tap
 * poison: the event hash would still be computable, but no operator could trace the tap to a rider or device,
 * and a replay of an untraceable tap is exactly how a rider gets charged twice.
 */
export function classifyTap(tap: unknown): Classification {
  if (!isJsonObject(tap)) {
    return { failureClass: "poison", classReason: `payload is not an object (${jsonTypeName(tap)})` };
  }
  const problems: string[] = [];
  for (const field of ID_FIELDS) {
    const value = Object.hasOwn(tap, field) ? tap[field] : undefined;
    if (value === undefined || value === null) problems.push(`missing ${field}`);
    else if (typeof value !== "string") problems.push(`${field} is not a string (${jsonTypeName(value)})`);
    else if (value.trim() === "") problems.push(`blank ${field}`);
  }
  return problems.length > 0
    ? { failureClass: "poison", classReason: problems.join("; ") }
    : { failureClass: "transient_schema", classReason: null };
}

/**
 * Failures so far for a record with `retryCount` failed retries: the first failure plus each retry.
 * (retry_count is 0 on the record the producer first dead-letters.)
 */
export function failureCount(retryCount: number): number {
  return retryCount + 1;
}

/**
 * The reason a record turns poison with. As the producers' Python handler words it, n is the number of
 * validation errors of the failure that used up the budget (`len(exc.errors())`), not the number of attempts.
 */
export function exhaustedReason(errorCount: number): string {
  return `exhausted retries: ${errorCount} errors`;
}

/** How many field errors a gate reason lists ("a: …; b: …" → 2); any other non-empty reason counts as one. */
export function reasonErrorCount(reason: string): number {
  const parts = reason.split("; ").filter((p) => p.trim() !== "");
  return parts.length === 0 ? 0 : parts.every((p) => /^[^:]+: /.test(p)) ? parts.length : 1;
}

export function isExhausted(retryCount: number, maxRetries: number): boolean {
  return retryCount >= maxRetries;
}

export interface FailureHistoryEntry {
  at: Date;
  reason: string;
  /** 1-based failure number: the first failure is 1, the first failed retry 2, ... */
  attempt: number;
}

export interface FailureState {
  /** the first failure reason; set once, never overwritten */
  firstReason: string | null;
  /** every failure after the first, oldest first */
  history: readonly FailureHistoryEntry[];
  /** failed retries after the first failure */
  retryCount: number;
  failureClass: AfcFailureClass;
  classReason: string | null;
}

/** The state of a record that has not failed yet; `recordFailure` on it records the first failure. */
export const NO_FAILURES: FailureState = {
  firstReason: null,
  history: [],
  retryCount: 0,
  failureClass: "transient_schema",
  classReason: null,
};

/**
 * Record one more failure. The first failure only sets `firstReason`; every later one is a failed retry:
 * `retryCount` grows and the reason is appended to `history`. Once `retryCount` reaches `maxRetries` a
 * transient record becomes poison with "exhausted retries: <failures> errors". Poison is terminal: later
 * failures are still recorded but the class and its reason stay as they were.
 */
export function recordFailure(state: FailureState, failure: { reason: string; at: Date }, maxRetries: number = MAX_RETRIES): FailureState {
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`maxRetries must be a non-negative integer, got ${maxRetries}`);
  }
  const first = state.firstReason === null;
  const retryCount = first ? state.retryCount : state.retryCount + 1;
  const history = first ? state.history : [...state.history, { at: failure.at, reason: failure.reason, attempt: failureCount(retryCount) }];
  const becomesPoison = state.failureClass !== "poison" && isExhausted(retryCount, maxRetries);
  return {
    firstReason: first ? failure.reason : state.firstReason,
    history,
    retryCount,
    failureClass: becomesPoison ? "poison" : state.failureClass,
    classReason: becomesPoison ? exhaustedReason(reasonErrorCount(failure.reason)) : state.classReason,
  };
}
