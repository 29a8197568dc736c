import { stringify } from "lossless-json";
import { AppError, bodyError, issueError, notUtf8Body } from "../../errors/app-error";
import { isTooDeep, nestsDeeperThan, TOO_DEEP } from "../../json/depth";
import { prepareRecord, type PreparedRecord } from "../store/prepare-row";
import type { NewDeadLetter } from "../../vocabulary/record";
import { normalizeCapturedTap } from "../../afc/normalize-record";
import { eventHash } from "../../afc/hash";
import { isJsonObject, parsePythonJson } from "../../json/lossless";
import { suspectText, unstorable } from "../../json/storable";
import type { ArrivalOutcome } from "./arrival-outcome";
import { unstorableProblem } from "./storable-record";
import { withFacts } from "./normalize";
import type { ArrivalRules } from "../store/arrival-facts";

// The capture boundary producers call with a batch of raw taps: each tap runs through the gate; the ones that
// fail become dead letters with the gate's reason, class and identity hash. All captures of one request
// commit in one transaction (ingest.ts): either every failing tap is in the DLQ or none is and the producer retries.

export const MAX_TAPS_PER_REQUEST = 10_000;

export interface CaptureBody {
  source: string | undefined;
  taps: unknown[];
  /** the text held an escape of something PostgreSQL cannot store (lib/json/storable.ts) */
  suspect?: boolean;
}

/**
 * Parses `[tap, …]`, `{ "source", "taps": [...] }` or one tap object — or, for NDJSON, one tap per line (blank
 * lines skipped, as POST /api/dead-letters does) — keeping number lexemes. Any line that is not JSON refuses
 * the whole request: the boundary is all or nothing.
 */
export function parseCaptureBody(text: string, format: "json" | "ndjson" = "json"): CaptureBody {
  const body = parseBody(text, format);
  if (nestsDeeperThan(body.taps)) throw bodyError(TOO_DEEP);
  const suspect = suspectText(text);
  // The request's source is named as such; each captured tap's fields are checked in gateTaps.
  const bad = suspect ? unstorable(body.source, "source") : null;
  if (bad) throw issueError(bad);
  return { ...body, suspect };
}

/** As the `?source=` query parameter allows. */
const MAX_SOURCE_LENGTH = 200;

function parseBody(text: string, format: "json" | "ndjson"): CaptureBody {
  if (format === "ndjson") return { source: undefined, taps: parseNdjsonTaps(text) };
  let value: unknown;
  try {
    value = parsePythonJson(text); // a Python producer writes a NaN fare as a bare NaN: the gate explains it
  } catch (e) {
    if (isTooDeep(e)) throw bodyError(TOO_DEEP);
    throw new AppError("invalid_json", `body: not valid JSON (${(e as Error).message})`, {
      issues: [{ path: "body", message: "not valid JSON" }],
    });
  }
  if (Array.isArray(value)) return { source: undefined, taps: value };
  if (isJsonObject(value) && Array.isArray(value.taps)) {
    // A misspelt `source` would otherwise capture every tap under the query's source, or none.
    const unknown = Object.keys(value).filter((k) => k !== "source" && k !== "taps");
    if (unknown.length) {
      const message = "is not a recognized field (the wrapper holds source and taps)";
      throw new AppError("validation_failed", `${unknown[0]}: ${message}`, { issues: unknown.map((path) => ({ path, message })) });
    }
    if (value.source !== undefined && (typeof value.source !== "string" || value.source.length > MAX_SOURCE_LENGTH)) {
      const message = typeof value.source === "string" ? `must be at most ${MAX_SOURCE_LENGTH} characters` : "must be a string";
      throw new AppError("validation_failed", `source: ${message}`, { issues: [{ path: "source", message }] });
    }
    return { source: value.source as string | undefined, taps: value.taps };
  }
  // A tap has no `taps` key (it would be an unrecognized one): an object with one is a wrapper gone wrong.
  if (isJsonObject(value) && "taps" in value) {
    throw new AppError("validation_failed", "taps: must be an array of taps", {
      issues: [{ path: "taps", message: "must be an array of taps" }],
    });
  }
  if (isJsonObject(value)) return { source: undefined, taps: [value] };
  throw new AppError("validation_failed", 'body: must be a tap, an array of taps or {"source", "taps": [...]}', {
    issues: [{ path: "body", message: "must be a tap object, an array of taps or an object with taps" }],
  });
}

function parseNdjsonTaps(text: string): unknown[] {
  const taps: unknown[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      taps.push(parsePythonJson(line));
    } catch (e) {
      const path = `body.line ${i + 1}`;
      if (isTooDeep(e)) throw new AppError("invalid_json", `${path}: ${TOO_DEEP}`, { issues: [{ path, message: TOO_DEEP }] });
      throw new AppError("invalid_json", `${path}: not valid JSON (${(e as Error).message})`, {
        issues: [{ path, message: "not valid JSON" }],
      });
    }
  });
  return taps;
}

const PYTHON_CONSTANT = "\u0000python:";

/**
 * A tap as JSON text for its raw envelope, a NaN or infinite number written as Python's json.dumps writes it
 * (bare NaN, Infinity, -Infinity) rather than as null: the text keeps what the producer sent.
 */
function tapText(tap: unknown): string {
  let constants = false;
  const text =
    stringify(tap, (_key, value: unknown) => {
      if (typeof value !== "number" || Number.isFinite(value)) return value;
      constants = true;
      return `${PYTHON_CONSTANT}${String(value)}`;
    }) ?? "null";
  return constants ? text.replace(/"\\u0000python:(NaN|Infinity|-Infinity)"/g, "$1") : text;
}

/** A capture request through the gate: each tap's outcome if it passed, and the failing ones ready to store. */
export interface GatedTaps {
  passed: ArrivalOutcome[];
  failing: { index: number; record: PreparedRecord }[];
  count: number;
}

/**
 * The gate of a capture request's body (UTF-8 bytes): parse, count, and each tap through normalizeCapturedTap.
 * No database and nothing shared: it runs on an ingest thread (normalize-pool.ts) like every arrival's
 * normalization. A refusal of the request (not JSON, too many taps, a value PostgreSQL cannot store) is thrown as
 * an AppError: the boundary is all or nothing.
 */
export function gateTaps(body: Uint8Array, format: "json" | "ndjson", now: Date, querySource?: string, rules?: ArrivalRules): GatedTaps {
  let text: string;
  try {
    // TextDecoder refuses a view of shared memory: decoded from a private copy.
    text = new TextDecoder("utf-8", { fatal: true }).decode(body.buffer instanceof SharedArrayBuffer ? new Uint8Array(body) : body);
  } catch {
    throw notUtf8Body();
  }
  const parsed = parseCaptureBody(text, format);
  if (parsed.taps.length > MAX_TAPS_PER_REQUEST) {
    throw new AppError("payload_too_large", `taps: at most ${MAX_TAPS_PER_REQUEST} per request, got ${parsed.taps.length}`, {
      issues: [{ path: "taps", message: `at most ${MAX_TAPS_PER_REQUEST} per request` }],
    });
  }
  const source = parsed.source ?? querySource;
  const passed: ArrivalOutcome[] = [];
  const failing: { index: number; record: NewDeadLetter }[] = [];
  parsed.taps.forEach((tap, index) => {
    const outcome = normalizeCapturedTap(tap, tapText(tap), { now, ...(source ? { source } : {}) });
    if (outcome.passed) passed.push({ index, status: "passed", eventHash: eventHash(tap) });
    else failing.push({ index, record: outcome.record });
  });
  // All or nothing, like the rest of the boundary: a value PostgreSQL cannot store would fail the one transaction.
  for (const f of failing) {
    const bad = unstorableProblem(f.record, parsed.suspect ?? false, "");
    if (bad) throw issueError({ path: `taps[${f.index}].${bad.path}`, message: bad.message });
  }
  // What the active triage rules will ask of each failing tap (its schema issues) is gathered here, as for every arrival.
  const prepared = failing.map((f) => ({ index: f.index, record: withFacts(prepareRecord(f.record), f.record, rules, null) }));
  return { passed, failing: prepared, count: parsed.taps.length };
}
