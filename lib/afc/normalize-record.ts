// AFC ingest boundaries → NewDeadLetter:
//   normalizeAfcRecord   — a dead-letter record a producer posts (what its Python code stored), and
//   normalizeCapturedTap — a tap caught failing the gate at our own capture boundary.
// A producer's failure_reason and event_hash are stored verbatim: the hash is the idempotency key the ledger
// deduplicates on, and recomputing it (even "correctly") could split one tap into two charges.
import * as z from "zod";
import type { NewDeadLetter, NormalizeResult } from "@/lib/vocabulary/record";
import {
  MAX_RETRIES,
  classifyTap,
  exhaustedReason,
  isExhausted,
  reasonErrorCount,
  type AfcFailureClass,
  type Classification,
} from "./classify";
import { EVENT_HASH_PATTERN, eventHash } from "./hash";
import { parseProducerTime } from "@/lib/time/parse-time";
import { NOT_DATETIME, NOT_INTEGER, issuesToFieldErrors } from "./issue-messages";
import { isJsonObject, parsePythonJson, toPlainJson } from "../json/lossless";
import { tapObservedAt } from "./tap-time";
import { runSchema } from "./run-schema";
import { judgedAsStored, tapIssuesOf, validateTap, withPlainNumbers, type TapValidation } from "./tap-schema";

export const DEFAULT_SOURCE = "unknown";

/** failure_reason stored when a record arrives without one and its payload passes the gate after all. */
export const NO_REASON_GIVEN = "unknown: no failure_reason given and raw_payload passes the tap schema";

const ENVELOPE_FIELDS = [
  "kind",
  "source",
  "raw_payload",
  "failure_reason",
  "failure_class",
  "event_hash",
  "retry_count",
  "first_seen_utc",
] as const;

// Optional fields accept null as "not given": Python producers serialise an unset Optional as null.
// Unknown keys are tolerated (looseObject): producers add bookkeeping fields, and the whole record is kept
// verbatim in rawEnvelope anyway.
const envelopeSchema = z.looseObject({
  kind: z.literal("afc"),
  source: z.string().nullish(),
  // presence only; the payload's shape is the gate's business, not a reason to reject the record
  raw_payload: z.unknown(),
  failure_reason: z.string().nullish(),
  failure_class: z.enum(["transient_schema", "poison"]).nullish(),
  event_hash: z.string().regex(EVENT_HASH_PATTERN).nullish(),
  retry_count: z
    .number()
    .refine(Number.isInteger, { params: { afc: NOT_INTEGER } })
    .min(0)
    .nullish(),
  // as Python stores it: also naive (utcnow().isoformat(), read as UTC) or str(datetime) with a space
  first_seen_utc: z
    .string()
    .refine((s) => parseProducerTime(s) !== null, { params: { afc: NOT_DATETIME } })
    .nullish(),
});

const ENVELOPE_ISSUE_OPTIONS = {
  fieldOrder: ENVELOPE_FIELDS,
  expectedLabel: { retry_count: "integer" },
  fixedMessage: { event_hash: "must be 64 lowercase hex characters (a SHA-256 hexdigest)" },
} as const;

export interface AfcRecordContext {
  now: Date;
  maxRetries?: number;
}

/**
 * Normalize a posted AFC dead-letter record. `value` is the record as parsed by `parseLossless` (plain JSON
 * works too, minus number-lexeme fidelity in the computed hash); `rawText` is its exact text.
 *
 * Rejected (field errors) only when the record itself is unusable: not an object, kind ≠ "afc", raw_payload
 * absent, or a metadata field of the wrong type/format (event_hash must be 64 lowercase hex). A raw_payload
 * that is a string is parsed as JSON (some producers store the payload text); a payload that is still not an
 * object is accepted as poison, so the producer's record is kept and visible rather than bounced.
 *
 * Computed when absent: failure_reason (the gate's reason), failure_class (identity, then retry budget),
 * event_hash (identity hash of the payload; null for a non-object payload), first_seen_utc (ctx.now).
 */
export function normalizeAfcRecord(value: unknown, rawText: string, ctx: AfcRecordContext): NormalizeResult {
  const maxRetries = ctx.maxRetries ?? MAX_RETRIES;
  const parsed = runSchema(envelopeSchema, withPlainNumbers(value));
  if (!parsed.ok) {
    return { ok: false, errors: issuesToFieldErrors(parsed.issues, value, ENVELOPE_ISSUE_OPTIONS) };
  }
  const record = parsed.data;
  // The schema already required raw_payload; this narrows `value` for the lookup below.
  if (!isJsonObject(value) || !Object.hasOwn(value, "raw_payload")) {
    return { ok: false, errors: [{ path: "raw_payload", message: "Required" }] };
  }
  // Take the payload from the lossless value, not zod's output: its number lexemes feed the hash.
  const tap = resolvePayload(value["raw_payload"]);
  const retryCount = record.retry_count ?? 0;
  const firstSeenAt = (record.first_seen_utc ? parseProducerTime(record.first_seen_utc) : null) ?? ctx.now;
  const givenReason = record.failure_reason?.trim() ? record.failure_reason : undefined;
  const gate = givenReason === undefined ? validateTap(tap) : null;
  const failureReason = givenReason ?? (gate?.ok === false ? gate.reason : NO_REASON_GIVEN);
  const classification = classifyRecord(tap, retryCount, maxRetries, record.failure_class ?? null, failureReason);
  return {
    ok: true,
    record: buildRecord({
      tap,
      rawText,
      source: record.source?.trim() ? record.source : DEFAULT_SOURCE,
      failureReason,
      classification,
      idempotencyKey: record.event_hash ?? eventHash(tap),
      replayCount: retryCount,
      firstSeenAt,
      gate,
    }),
  };
}

export type CaptureResult = { passed: true } | { passed: false; record: NewDeadLetter };

/**
 * The capture boundary: run the gate on a tap (as parsed by `parseLossless`); a failing tap becomes a dead
 * letter with the gate's reason, its identity class and its computed event hash.
 */
export function normalizeCapturedTap(tap: unknown, rawText: string, ctx: { now: Date; source?: string }): CaptureResult {
  const gate = validateTap(tap);
  if (gate.ok) return { passed: true };
  return {
    passed: false,
    record: buildRecord({
      tap,
      rawText,
      source: ctx.source?.trim() ? ctx.source : DEFAULT_SOURCE,
      failureReason: gate.reason,
      classification: classifyTap(tap),
      idempotencyKey: eventHash(tap),
      replayCount: 0,
      firstSeenAt: ctx.now,
      gate,
    }),
  };
}

/**
 * A raw tap a broker dead-lettered: kept whether or not it passes the gate (it failed downstream all the same).
 * The gate's reason when it fails, else `reason` (why the broker gave up on it).
 */
export function normalizeDeadLetteredTap(tap: unknown, rawText: string, ctx: { now: Date; source: string; reason: string }): NewDeadLetter {
  const gate = validateTap(tap);
  return buildRecord({
    tap,
    rawText,
    source: ctx.source,
    failureReason: gate.ok ? ctx.reason : gate.reason,
    classification: classifyTap(tap),
    idempotencyKey: eventHash(tap),
    replayCount: 0,
    firstSeenAt: ctx.now,
    gate,
  });
}

function buildRecord(args: {
  tap: unknown;
  rawText: string;
  source: string;
  failureReason: string;
  classification: Classification;
  idempotencyKey: string | null;
  replayCount: number;
  firstSeenAt: Date;
  /** the gate's verdict on the tap, when it ran */
  gate: TapValidation | null;
}): NewDeadLetter {
  const eventId = idField(args.tap, "event_id");
  const deviceId = idField(args.tap, "device_id");
  const observed = tapObservedAt(args.tap);
  return {
    kind: "afc",
    source: args.source,
    idempotencyKey: args.idempotencyKey,
    entityKey: deviceId,
    eventId,
    deviceId,
    sourceMessageId: null,
    observedAt: observed?.date ?? args.firstSeenAt,
    ...(observed ? { observedAtExact: observed.exact } : {}),
    firstSeenAt: args.firstSeenAt,
    rawEnvelope: args.rawText,
    payload: toPlainJson(args.tap),
    failureReason: args.failureReason,
    failureClass: args.classification.failureClass,
    classReason: args.classification.classReason,
    replayCount: args.replayCount,
    spatial: null,
    ...(args.gate && judgedAsStored(args.tap) ? { tapIssues: tapIssuesOf(args.gate) } : {}),
  };
}

/**
 * A string payload is the JSON text of the tap as the producer's Python wrote it (so NaN / Infinity may occur,
 * read as json.loads reads them); anything else (or unparseable text) is taken as is.
 */
function resolvePayload(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return parsePythonJson(raw);
  } catch {
    return raw;
  }
}

function idField(tap: unknown, field: "event_id" | "device_id"): string | null {
  if (!isJsonObject(tap)) return null;
  const value = tap[field];
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/**
 * Identity first: a tap nobody can trace is poison whatever the producer's class says, because replaying it
 * risks a double charge no one could find. Then the retry budget, then the producer's class, then transient.
 */
function classifyRecord(
  tap: unknown,
  retryCount: number,
  maxRetries: number,
  reported: AfcFailureClass | null,
  failureReason: string,
): Classification {
  const identity = classifyTap(tap);
  if (identity.failureClass === "poison") return identity;
  if (isExhausted(retryCount, maxRetries)) {
    return { failureClass: "poison", classReason: exhaustedReason(reasonErrorCount(failureReason)) };
  }
  if (reported !== null) return { failureClass: reported, classReason: "reported by producer" };
  return identity;
}
