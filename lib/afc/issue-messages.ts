// The one place zod 4 issues become reason text. Producers (Python/pydantic and older zod-3 services) group
// dead letters on the zod-3 wording ("Expected integer, received string", "Required", "Unrecognized key"), while
// zod 4 prints "Invalid input: expected number, received string". The schemas stay plain zod; this module
// rewrites the issues, using the input value itself for the "received" part (zod 4 no longer reports it).
import type * as z from "zod";
import type { FieldError } from "@/lib/vocabulary/record";
import { jsonTypeName } from "../json/lossless";

/** Marker a schema puts in a refine's params so the mapper knows which rule failed without parsing text. */
export const NOT_INTEGER = "afc:not_integer";
export const NOT_BLANK = "afc:not_blank";
export const NOT_DATETIME = "afc:not_datetime";

export interface IssueMapOptions {
  /** Top-level field order; errors are sorted by it, other keys follow in input order. */
  fieldOrder: readonly string[];
  /** What a field expects in "Expected <x>, received <y>" when zod's own word differs (number → integer). */
  expectedLabel?: Readonly<Record<string, string>>;
  /** A fixed message for every issue on a field (e.g. event_hash: "must be 64 lowercase hex characters …"). */
  fixedMessage?: Readonly<Record<string, string>>;
}

export const ROOT_PATH = "(root)";

/**
 * Map zod issues for a flat object to field errors: one entry per field (the first failing rule, which is the
 * schema's check order: type, then integer, then bounds), one entry per unrecognized key, stable order.
 */
export function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[], input: unknown, options: IssueMapOptions): FieldError[] {
  const seen = new Set<string>();
  const errors: { error: FieldError; rank: number; seq: number }[] = [];
  const push = (path: string, message: string, rank: number) => {
    if (seen.has(path)) return;
    seen.add(path);
    errors.push({ error: { path, message }, rank, seq: errors.length });
  };
  const unknownRank = options.fieldOrder.length;

  for (const issue of issues) {
    if (issue.code === "unrecognized_keys" && issue.path.length === 0) {
      // zod 4 reports all extra keys in one issue; producers expect one entry per key, path = the key.
      for (const key of issue.keys) push(key, "Unrecognized key", unknownRank);
      continue;
    }
    const path = dottedPath(issue.path);
    const head = issue.path[0];
    const field = typeof head === "string" ? head : undefined;
    const value = valueAt(input, issue.path);
    const fixed = field === undefined ? undefined : options.fixedMessage?.[field];
    const message = fixed ?? messageFor(issue, value, field === undefined ? undefined : options.expectedLabel?.[field]);
    // root-level issues ("not an object") first, then schema fields in order, then anything else
    const index = field === undefined ? -1 : options.fieldOrder.indexOf(field);
    push(path, message, field === undefined ? -1 : index === -1 ? unknownRank : index);
  }
  // Array#sort is stable, so issues of equal rank (unrecognized keys) keep zod's input order.
  return errors.sort((a, b) => a.rank - b.rank || a.seq - b.seq).map((e) => e.error);
}

/** "<path>: <message>; <path>: <message>" — the failure_reason format producers store. */
export function formatReason(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.path}: ${e.message}`).join("; ");
}

function messageFor(issue: z.core.$ZodIssue, value: unknown, expectedLabel: string | undefined): string {
  // zod 3 said "Required" for any absent key; zod 4 words it per schema ("expected nonoptional" for
  // z.unknown(), invalid_value for a literal).
  if (value === undefined && issue.path.length > 0) return "Required";
  switch (issue.code) {
    case "invalid_type": {
      const expected = expectedLabel ?? issue.expected;
      return `Expected ${expected}, received ${receivedName(value, expected)}`;
    }
    case "too_small":
      if (issue.origin === "string") return `String must contain at least ${String(issue.minimum)} character(s)`;
      if (issue.origin === "array") return `Array must contain at least ${String(issue.minimum)} element(s)`;
      return `Number must be greater than ${issue.inclusive ? "or equal to " : ""}${String(issue.minimum)}`;
    case "too_big":
      if (issue.origin === "string") return `String must contain at most ${String(issue.maximum)} character(s)`;
      if (issue.origin === "array") return `Array must contain at most ${String(issue.maximum)} element(s)`;
      return `Number must be less than ${issue.inclusive ? "or equal to " : ""}${String(issue.maximum)}`;
    case "invalid_format":
      if (issue.format === "datetime") return "Invalid datetime";
      if (issue.format === "regex") return "Invalid";
      return `Invalid ${issue.format}`;
    case "not_multiple_of":
      return `Number must be a multiple of ${String(issue.divisor)}`;
    case "invalid_value": {
      if (issue.values.length === 1) return `Invalid literal value, expected ${JSON.stringify(issue.values[0])}`;
      const options = issue.values.map((v) => `'${String(v)}'`).join(" | ");
      return `Invalid enum value. Expected ${options}, received ${quoteReceived(value)}`;
    }
    case "custom": {
      const marker: unknown = issue.params?.["afc"];
      if (marker === NOT_INTEGER) return `Expected ${expectedLabel ?? "integer"}, received float`;
      if (marker === NOT_BLANK) return "String must contain at least 1 non-whitespace character(s)";
      if (marker === NOT_DATETIME) return "Invalid datetime";
      return issue.message;
    }
    default:
      return issue.message;
  }
}

/** zod 3 said "received float" for a non-integer (or non-finite: 1E400 parses to Infinity) number. */
function receivedName(value: unknown, expected: string): string {
  const name = jsonTypeName(value);
  if (name === "number" && expected === "integer") return "float";
  return name;
}

function quoteReceived(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : jsonTypeName(value);
}

function dottedPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? ROOT_PATH : path.map(String).join(".");
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    // own properties only: an absent key must read as absent ("Required"), never as something inherited
    const own = Object.getOwnPropertyDescriptor(current, key);
    if (own === undefined) return undefined;
    const next: unknown = own.value;
    current = next;
  }
  return current;
}
