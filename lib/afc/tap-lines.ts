// Per-line logic of `redrive afc hash` / `redrive afc validate` (the command file only does I/O), kept here
// so it is unit-tested with the rest of lib/afc. One input line always yields exactly one output line, so
// results can be pasted next to the input (`paste taps.ndjson <(redrive afc hash < taps.ndjson)`).
import { classifyTap, type AfcFailureClass } from "./classify";
import { eventHash } from "./hash";
import { parsePythonJson } from "../json/lossless";
import { validateTap } from "./tap-schema";

export type HashLineResult = { ok: true; hash: string } | { ok: false; error: string };

/** Event hash of one raw tap line. Not JSON, or JSON that is not an object (no identity), is an error. */
export function hashTapLine(line: string): HashLineResult {
  const parsed = parseLine(line);
  if (!parsed.ok) return parsed;
  const hash = eventHash(parsed.value);
  return hash === null ? { ok: false, error: "tap is not a JSON object" } : { ok: true, hash };
}

export interface ValidateLineOutput {
  line: number;
  valid: boolean;
  reason: string | null;
  failure_class: AfcFailureClass | null;
  event_hash: string | null;
}

export interface LineError {
  line: number;
  error: string;
}

/**
 * Gate result for one raw tap line. A JSON value that is not an object is still a result (invalid, poison,
 * no hash); only text that is not JSON at all is an error.
 */
export type ValidateLineResult = { ok: true; output: ValidateLineOutput } | { ok: false; output: LineError };

export function validateTapLine(line: string, lineNumber: number): ValidateLineResult {
  const parsed = parseLine(line);
  if (!parsed.ok) return { ok: false, output: { line: lineNumber, error: parsed.error } };
  const gate = validateTap(parsed.value);
  return {
    ok: true,
    output: {
      line: lineNumber,
      valid: gate.ok,
      reason: gate.ok ? null : gate.reason,
      failure_class: gate.ok ? null : classifyTap(parsed.value).failureClass,
      event_hash: eventHash(parsed.value),
    },
  };
}

function parseLine(line: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (line.trim() === "") return { ok: false, error: "empty line" };
  try {
    return { ok: true, value: parsePythonJson(line) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
