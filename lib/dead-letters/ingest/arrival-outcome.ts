import type { FailureClass, FieldError } from "../../vocabulary/record";

// What became of one arrival, whichever way it came (ingest.ts): the one result type of ingest inside Redrive.
// Each path answers in its own documented wire format, made from these by the functions below: POST
// /api/dead-letters and `redrive import` per record (envelopeAnswer), POST /api/afc/taps per tap (tapAnswer), a
// pull in counts (pulledCounts). Browser-safe: the dashboard's import reads the envelope answer's type.

/** The stored record as the sender may learn it. */
export interface StoredAs {
  reason: string;
  failureClass: FailureClass;
  /** the record's idempotency key (an AFC tap's event hash) */
  key: string | null;
  /** a broker message kept as poison because it could not be read as its source's kind */
  unreadable: boolean;
}

export type ArrivalOutcome =
  | { index: number; line?: number; status: "created"; id: string; stored: StoredAs }
  /**
   * A known key, or (`seen`) a broker message a pull stored before, or (`archived`) a key whose record has left
   * dead_letter for the archive: `id` and `classNow` (the record's class after this failure) only for the record's
   * own sender (write-records.ts StoreOutcome).
   */
  | {
      index: number;
      line?: number;
      status: "duplicate";
      id?: string;
      stored?: StoredAs;
      classNow?: FailureClass;
      effect: "repeat" | "failed_again" | "noted" | "seen" | "archived";
    }
  /** `key`: the envelope's idempotency key when it parsed and has one, so the rejection can be found in the file */
  | { index: number; line?: number; status: "rejected"; errors: FieldError[]; key?: string }
  /** an AFC tap that passed the gate: nothing to store */
  | { index: number; status: "passed"; eventHash: string | null };

/**
 * POST /api/dead-letters' and `redrive import`'s answer for one record. `line`: an NDJSON record's line in the body,
 * from 1 (the index counts records and skips blank lines). A duplicate of a record another sender stored answers
 * without its id.
 */
export type IngestResult =
  | { index: number; line?: number; status: "created"; id: string }
  | { index: number; line?: number; status: "duplicate"; id?: string }
  | { index: number; line?: number; status: "rejected"; errors: FieldError[]; key?: string };

export function envelopeAnswer(o: ArrivalOutcome): IngestResult {
  // index first, then line: the order the CLI prints them in
  const at = o.status !== "passed" && o.line !== undefined ? { index: o.index, line: o.line } : { index: o.index };
  switch (o.status) {
    case "created":
      return { ...at, status: "created", id: o.id };
    case "duplicate":
      return o.id === undefined ? { ...at, status: "duplicate" } : { ...at, status: "duplicate", id: o.id };
    case "rejected":
      return { ...at, status: "rejected", errors: o.errors, ...(o.key !== undefined ? { key: o.key } : {}) };
    case "passed":
      throw new Error("an envelope has no gate to pass");
  }
}

/** POST /api/afc/taps' answer for one tap. */
export type TapResult =
  | { index: number; status: "passed"; event_hash: string | null }
  | { index: number; status: "captured"; id: string; reason: string; failure_class: string; event_hash: string | null }
  // A duplicate of a record another sender captured: without its id, and with this tap's own class, not the record's.
  | { index: number; status: "duplicate"; id?: string; reason: string; failure_class: string; event_hash: string | null };

export function tapAnswer(o: ArrivalOutcome): TapResult {
  if (o.status === "passed") return { index: o.index, status: "passed", event_hash: o.eventHash };
  if (o.status === "rejected" || !o.stored) throw new Error(`a tap is passed or captured, not ${o.status}`);
  const common = { index: o.index, reason: o.stored.reason, event_hash: o.stored.key };
  if (o.status === "created") return { ...common, status: "captured", id: o.id, failure_class: o.stored.failureClass };
  // A repeat answers with the record's class as stored now: the capture that spends the last retry makes it poison.
  return {
    ...common,
    status: "duplicate",
    ...(o.id === undefined ? {} : { id: o.id }),
    failure_class: o.classNow ?? o.stored.failureClass,
  };
}

/** A capture request's answer: counts and a result per tap, in order. */
export function captureAnswer(outcomes: ArrivalOutcome[]): { passed: number; captured: number; duplicates: number; results: TapResult[] } {
  const count = (s: ArrivalOutcome["status"]) => outcomes.filter((o) => o.status === s).length;
  return { passed: count("passed"), captured: count("created"), duplicates: count("duplicate"), results: outcomes.map(tapAnswer) };
}

export interface PulledCounts {
  pulled: number;
  created: number;
  /** a position seen before, or a re-send of a record still in triage */
  duplicates: number;
  unreadable: number;
  /** a message at a new position whose key is a replayed record's: that record failing again */
  failedAgain: number;
}

/** A page of broker messages in the counts a pull answers with and keeps on its source. */
export function pulledCounts(outcomes: ArrivalOutcome[]): PulledCounts {
  const c: PulledCounts = { pulled: outcomes.length, created: 0, duplicates: 0, unreadable: 0, failedAgain: 0 };
  for (const o of outcomes) {
    if (o.status === "created") {
      c.created++;
      if (o.stored.unreadable) c.unreadable++;
    } else if (o.status === "duplicate" && o.effect === "failed_again") c.failedAgain++;
    else c.duplicates++;
  }
  return c;
}
