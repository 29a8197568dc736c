// JSON helpers for AFC payloads. Ingest parses with lossless-json so that number lexemes survive: the identity
// hash must be computed from the lexeme exactly as the Python producers' json.loads saw it ("275.0" is a float
// in Python and hashes differently from "275"), which JSON.parse would destroy.
import { isLosslessNumber, isSafeNumber, parse } from "lossless-json";
import type { JsonValue } from "@/lib/dead-letters/types";

export { isLosslessNumber };

/**
 * Parse JSON text keeping number lexemes. Duplicate keys keep the LAST value, as Python's json.loads does
 * (lossless-json throws on them by default); the key keeps its first position, also as in a Python dict.
 * Throws SyntaxError on invalid JSON. Python-only extensions (NaN, Infinity literals) are rejected.
 */
export function parseLossless(text: string): unknown {
  return parse(text, null, { onDuplicateKey: ({ newValue }) => newValue });
}

/** A plain (non-array, non-number) JSON object as produced by either parser. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/**
 * Convert a lossless value into plain JSON for storage (Postgres jsonb through Prisma, which serialises with
 * JSON.stringify). A LosslessNumber becomes a JS number when lossless-json's `isSafeNumber` says parseFloat
 * keeps every significant digit ("275.0" → 275 is fine); otherwise (integers beyond 2^53, over-long decimals,
 * 1E400 overflow, 1e-400 underflow) it is kept as its exact lexeme in a STRING. A silently rounded 64-bit id or
 * fare is worse than a type change an operator can see, and the untouched lexeme stays in `rawEnvelope`.
 * Plain JS numbers pass through (non-finite ones, impossible from JSON text, become null like JSON.stringify).
 */
export function toPlainJson(value: unknown): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value.toString();
  }
  if (isLosslessNumber(value)) {
    return isSafeNumber(value.value) ? Number.parseFloat(value.value) : value.value;
  }
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (isJsonObject(value)) {
    const out: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) setOwn(out, key, toPlainJson(value[key]));
    return out;
  }
  throw new TypeError(`not a JSON value: ${typeof value}`);
}

/** JSON type name of a value in the vocabulary of the reason strings ("string", "number", "array", ...). */
export function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "array";
  if (isLosslessNumber(value) || typeof value === "bigint") return "number";
  return typeof value;
}

/**
 * obj[key] = value, except that a "__proto__" key stays an own data property instead of replacing the
 * prototype (what JSON.parse and lossless-json do). Plain assignment otherwise: defineProperty on every key
 * pushes V8 into slow dictionary objects (measured: it was the top self-time entry of the ingest benchmark).
 */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
