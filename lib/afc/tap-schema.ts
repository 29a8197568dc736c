// The AFC tap gate: what a fare-collection tap must look like before it may reach the ledger. A tap that fails
// here is dead-lettered with the reason string this module builds.
import * as z from "zod";
import type { FieldError } from "@/lib/vocabulary/record";
import { isJsonObject, isLosslessNumber, isSafeLexeme, setOwn } from "../json/lossless";
import { isRfc3339 } from "@/lib/time/parse-time";
import { NOT_BLANK, NOT_DATETIME, NOT_INTEGER, formatReason, issuesToFieldErrors } from "./issue-messages";
import { runSchema } from "./run-schema";

export const TAP_FIELDS = ["event_id", "device_id", "fare_amount_cents", "tap_timestamp"] as const;

// Whitespace-only ids are rejected too: they cannot deduplicate or trace a tap any better than "" can, and
// classify.ts would call such a record poison, so letting it through the gate would be inconsistent.
const idString = z
  .string()
  .min(1)
  .refine((s) => s.trim().length > 0, { params: { afc: NOT_BLANK } });

export const tapSchema = z.strictObject({
  event_id: idString,
  device_id: idString,
  // z.number().int() in zod 4 also caps at 2^53-1; producers (pydantic int) accept any integer, so the integer
  // rule is a refine. 275.0 counts as an integer (pydantic lax mode and zod 3 both accept it); the hash still
  // tells 275.0 from 275 because it works on the lexeme.
  fare_amount_cents: z
    .number()
    .refine(Number.isInteger, { params: { afc: NOT_INTEGER } })
    .min(0),
  // RFC 3339 with a mandatory offset ("Z" or ±hh:mm), seconds required, calendar-checked by zod's pattern;
  // "t"/"z" may be lower case, as RFC 3339 allows (zod's pattern alone would refuse them).
  tap_timestamp: z.string().refine(isRfc3339, { params: { afc: NOT_DATETIME } }),
});

export type AfcTap = z.infer<typeof tapSchema>;

export type TapValidation = { ok: true; tap: AfcTap } | { ok: false; errors: FieldError[]; reason: string };

const TAP_ISSUE_OPTIONS = {
  fieldOrder: TAP_FIELDS,
  expectedLabel: { fare_amount_cents: "integer" },
} as const;

/**
 * Validate a tap as parsed by `parseLossless` (or plain JSON). The failure reason is
 * `<path>: <message>` per field joined with "; ", e.g.
 * "fare_amount_cents: Expected integer, received string; battery_pct: Unrecognized key".
 */
export function validateTap(value: unknown): TapValidation {
  const result = runSchema(tapSchema, withPlainNumbers(value));
  if (result.ok) return { ok: true, tap: result.data };
  const errors = issuesToFieldErrors(result.issues, value, TAP_ISSUE_OPTIONS);
  return { ok: false, errors, reason: formatReason(errors) };
}

/** One issue of a tap under the schema: its field, and its `field: message` entry of the reason. */
export interface TapIssue {
  field: string;
  entry: string;
}

/** A gate's issues, each field with its entry (none when the tap passes). */
export function tapIssuesOf(gate: TapValidation): TapIssue[] {
  return gate.ok ? [] : gate.errors.map((e) => ({ field: e.path, entry: `${e.path}: ${e.message}` }));
}

/**
 * Whether validateTap judges a tap as parsed (lossless numbers) exactly as it judges the tap as stored (toPlainJson):
 * the schema reads the top level only, where a safe number lexeme is the same number either way, but an unsafe one
 * (1e400, 2^63) is stored as its text and would be reported as a string. Nested values are reported by type name,
 * the same for both.
 */
export function judgedAsStored(tap: unknown): boolean {
  if (!isJsonObject(tap)) return false;
  for (const key of Object.keys(tap)) {
    const v = tap[key];
    if (typeof v === "bigint" || (isLosslessNumber(v) && !isSafeLexeme(v.value))) return false;
  }
  return true;
}

/**
 * zod sees numbers, not LosslessNumber objects: convert the top level (the only level the tap schema reads;
 * nested values can only appear under unrecognized keys or as wrong types, which zod reports by type name).
 * parseFloat of an overflowing float lexeme (1e400) gives Infinity, which the fare rule reports as a float, as
 * Python reads it (float inf). An integer lexeme beyond the double range stays an integer, as Python's int does.
 */
export function withPlainNumbers(value: unknown): unknown {
  if (isLosslessNumber(value)) return plainNumber(value.value);
  if (!isJsonObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = value[key];
    setOwn(out, key, isLosslessNumber(v) ? plainNumber(v.value) : v);
  }
  return out;
}

const INTEGER_LEXEME = /^-?\d+$/;

/** The number zod checks: an integer lexeme too large for a double becomes the largest double (an integer). */
function plainNumber(lexeme: string): number {
  const n = Number.parseFloat(lexeme);
  if (Number.isFinite(n) || !INTEGER_LEXEME.test(lexeme)) return n;
  return n > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
}
