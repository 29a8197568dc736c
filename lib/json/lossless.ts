// JSON helpers for AFC payloads. Ingest parses with lossless-json so that number lexemes survive: the identity
// hash must be computed from the lexeme exactly as the Python producers' json.loads saw it ("275.0" is a float
// in Python and hashes differently from "275"), which JSON.parse would destroy.
import { LosslessNumber, isLosslessNumber, isSafeNumber, parse } from "lossless-json";
import type { JsonValue } from "@/lib/json/value";

export { isLosslessNumber };

/**
 * Parse JSON text keeping number lexemes. Duplicate keys keep the LAST value, as Python's json.loads does
 * (lossless-json throws on them by default); the key keeps its first position, also as in a Python dict.
 * Throws SyntaxError on invalid JSON. Python-only extensions (NaN, Infinity literals) are rejected.
 */
export function parseLossless(text: string): unknown {
  return parse(text, null, LAST_DUPLICATE_WINS);
}

/** As Python's json.loads reads a duplicate key. Built once: it is asked for every record ingested. */
const LAST_DUPLICATE_WINS = { onDuplicateKey: ({ newValue }: { newValue: unknown }) => newValue };

/**
 * Parse text the way the producers' `json.loads` does: `parseLossless` plus Python's non-standard constants
 * `NaN`, `Infinity` and `-Infinity`. Python's `json.dumps` writes a float nan/inf fare as those bare words
 * (allow_nan=True is its default), so raw taps from Python producers can contain them, and the identity hash
 * has to read them as Python would (they come back as JS NaN / ±Infinity, which `pythonJsonDumps` prints as
 * Python does; in the stored payload they become null, the text stays in rawEnvelope). For what producers' Python
 * code wrote: dead-letter envelopes (POST /api/dead-letters, `redrive import`), captured taps, `redrive afc
 * hash|validate` and `geometry repair` lines. Other request bodies (actions, replays, filters) stay strict JSON.
 */
export function parsePythonJson(text: string): unknown {
  if (!mayHoldPythonConstants(text)) return parseLossless(text);
  const { text: strict, constants } = replacePythonConstants(text);
  if (constants.size === 0) return parseLossless(text);
  // lossless-json parses numbers in text order, so the n-th number it meets is the n-th number token.
  let ordinal = 0;
  return parse(strict, null, {
    onDuplicateKey: ({ newValue }) => newValue,
    parseNumber: (lexeme) => constants.get(ordinal++) ?? new LosslessNumber(lexeme),
  });
}

/** Whether `text` could hold a bare NaN / Infinity at all (a substring test; inside strings counts too). */
const mayHoldPythonConstants = (text: string): boolean => text.includes("NaN") || text.includes("Infinity");

/**
 * JSON.parse — plain numbers, several times faster than the lossless reading on a 100k-vertex geometry — or,
 * when that fails on a bare NaN / Infinity, `parsePythonJson`: for text whose number lexemes do not matter
 * (coordinates) but which Python may have written. Throws JSON.parse's SyntaxError otherwise.
 */
export function parseJsonOrPython(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    if (!mayHoldPythonConstants(text)) throw e;
    return parsePythonJson(text);
  }
}

const PYTHON_CONSTANTS: readonly (readonly [string, number])[] = [
  ["-Infinity", Number.NEGATIVE_INFINITY],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["NaN", Number.NaN],
];

/**
 * Replace each bare NaN / Infinity / -Infinity outside string literals with a number token (" 0 ": the spaces
 * keep `1NaN` or `NaN1` invalid, as in Python) and remember which number tokens (by position among all number
 * tokens) stood for which constant.
 */
function replacePythonConstants(text: string): { text: string; constants: Map<number, number> } {
  const constants = new Map<number, number>();
  let out = "";
  let from = 0;
  let numberTokens = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (ch === '"') {
      i += 1;
      while (i < text.length && text.charAt(i) !== '"') i += text.charAt(i) === "\\" ? 2 : 1;
      i += 1;
      continue;
    }
    const constant = PYTHON_CONSTANTS.find(([word]) => text.startsWith(word, i));
    if (constant !== undefined) {
      out += `${text.slice(from, i)} 0 `;
      constants.set(numberTokens, constant[1]);
      numberTokens += 1;
      i += constant[0].length;
      from = i;
      continue;
    }
    if (ch === "-" || (ch >= "0" && ch <= "9")) {
      numberTokens += 1;
      i += 1;
      while (i < text.length && /[0-9eE.+-]/.test(text.charAt(i))) i += 1;
      continue;
    }
    i += 1;
  }
  return { text: out + text.slice(from), constants };
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
    return isSafeLexeme(value.value) ? Number.parseFloat(value.value) : value.value;
  }
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (isJsonObject(value)) {
    const out: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) setOwn(out, key, toPlainJson(value[key]));
    return out;
  }
  throw new TypeError(`not a JSON value: ${typeof value}`);
}

/** Whether toPlainJson stores a number lexeme as a number (otherwise as its text). */
export const isSafeLexeme = (lexeme: string): boolean => isSafeNumber(lexeme);

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
 * pushes V8 into slow dictionary objects, which costs ingest on every key of every record.
 */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
