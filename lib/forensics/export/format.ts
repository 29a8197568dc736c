import { maskEntityKey, maskIdentifier } from "../../masking/identifiers";
import { maskFreeText, maskText } from "../../masking/mask";
import type { MaskRules } from "../../masking/rules";
import { receivedGeometry } from "../../spatial/received";
import { isJsonObject, parseJsonOrPython, parsePythonJson } from "../../json/lossless";
import type { ExportFormat } from "../forensics-schemas";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// Pure formatters for exports: one record row in, the text for it out. Built by string concatenation over the
// stored texts (raw envelope, payload::text) instead of parse-and-stringify: it keeps the envelope as received
// (number lexemes matter to AFC hashes) and it keeps a large export's throughput (bench:export).

/** What an NDJSON line needs: the envelope as received, and what wrapping a captured tap takes. */
export interface NdjsonRow {
  kind: DeadLetterKind;
  source: string;
  idempotency_key: string | null;
  failure_class: string;
  first_failure_reason: string;
  failure_count: number;
  /** RFC 3339 UTC to the microsecond as every export time (utcMicrosSql), formatted by PostgreSQL (parsing a Date per row costs more than the row) */
  first_seen_at: string;
  raw_envelope: string | null;
  /** AFC: the record was captured at our tap boundary, so raw_envelope is the bare tap */
  captured: boolean | null;
  /** pulled from a broker source: raw_envelope is the message body as it died there */
  pulled: boolean;
  /** pulled, and its body could not be read as a dead letter: raw_envelope is that text (or base64), no envelope */
  unreadable: boolean;
}

/** What a CSV row holds: the record's columns and its payload as JSON text. */
export interface CsvRow {
  id: string;
  kind: DeadLetterKind;
  source: string;
  idempotency_key: string | null;
  entity_key: string | null;
  event_id: string | null;
  device_id: string | null;
  source_message_id: string | null;
  observed_at: string;
  first_seen_at: string;
  status: string;
  failure_class: string;
  class_reason: string | null;
  first_failure_reason: string;
  reason: string;
  reason_group: string;
  replay_count: number;
  failure_count: number;
  outcome: string | null;
  payload: string | null;
  /** "method/policy" the approval pinned (approved or replayed records) */
  approved_repair: string | null;
  /** the latest replay that reached its sink: its batch and the "method/policy" it was sent with */
  replay_batch_id: string | null;
  replay_repair: string | null;
  /** the triage rule whose decision the record's status is: "rule <name> v<n> (approved by A and B)" */
  decided_by: string | null;
}

/** What a record's GeoJSON features hold. */
export interface GeojsonRow {
  id: string;
  kind: DeadLetterKind;
  source: string;
  idempotency_key: string | null;
  status: string;
  failure_class: string;
  reason: string;
  observed_at: string;
  outcome: string | null;
  geometry: string | null;
  properties: string | null;
  repaired_geometry: string | null;
  /** the raw envelope, only for a record an analyst edited (its payload's geometry is then the edit) */
  received_envelope: string | null;
  /** "method/policy" the approval pinned (approved or replayed records) */
  approved_repair: string | null;
  /** "method/policy" of the analysis, whose result repaired_geometry is */
  analysis_repair: string | null;
  /** JSON text of the latest replay that reached its sink: {batch_id, repair ("method/policy"), from} */
  replay: string | null;
  /** the geometry that replay sent (JSON text), null when not kept */
  replay_geometry: string | null;
  /** as CsvRow's */
  decided_by: string | null;
}

const EVENT_HASH = /^[0-9a-f]{64}$/;
/** Most envelopes arrive on one line; indexOf is much cheaper than a replace that finds nothing. */
const oneLine = (text: string) => (text.includes("\n") || text.includes("\r") ? text.replace(/\r\n|\r|\n/g, " ") : text);
const q = (s: string) => JSON.stringify(s);
const masked = (text: string, mask: MaskRules | null) => (mask ? maskText(text, mask) : text);
const free = (text: string, mask: MaskRules | null) => (mask ? maskFreeText(text, mask) : text);
/** An integer of 14+ digits as a coordinate (maskAnswer's number rule); fractions never are card numbers. */
const LONG_INTEGER = /(?<![\d.])\d{14,19}(?![\d.eE])/;
const geometryText = (text: string | null, mask: MaskRules | null) =>
  text !== null && mask && LONG_INTEGER.test(text) ? maskText(text, mask) : text;

/**
 * One NDJSON line that `POST /api/dead-letters` / `redrive import` ingest back into the same record (same kind,
 * source, key, identifiers, payload, first reason and class), or null when the record has no envelope left
 * (purged, or past retention, or a broker message that was never one): there is nothing to re-ingest.
 *
 * A record posted by a producer is its raw envelope as received. A tap captured at our boundary was stored
 * bare, so it is wrapped the way an AFC producer would have dead-lettered it; the stored hash goes in as
 * event_hash so the key is never recomputed, and retry_count is the failed retries after the first failure
 * (what the producers count), so an exhausted tap re-imports as exhausted. A message pulled from a broker is its
 * body, which may lack what POST requires and the pull supplied (kind, source, the broker's reason): those the
 * body lacks go first, and the ones it has are its own (the body's fields won at the pull too), so every key is
 * written once; a bare tap is wrapped as a captured one.
 */
export function ndjsonLine(r: NdjsonRow, mask: MaskRules | null): string | null {
  if (r.raw_envelope === null || r.unreadable) return null;
  // Newlines can only be whitespace between tokens in JSON (inside strings they are escaped): an envelope that
  // arrived pretty-printed becomes one line, its content unchanged.
  const raw = oneLine(masked(r.raw_envelope, mask));
  if (r.pulled) {
    if (r.kind === "spatial")
      return withMissingFieldsFirst(raw, [
        ["kind", '"spatial"'],
        ["source", q(free(r.source, mask))],
        ["dead_letter_reason", q(free(r.first_failure_reason, mask))],
      ]);
    if (hasRawPayload(raw))
      return withMissingFieldsFirst(raw, [
        ["kind", '"afc"'],
        ["source", q(free(r.source, mask))],
        ["failure_reason", q(free(r.first_failure_reason, mask))],
      ]);
    return wrappedTap(r, raw, mask);
  }
  if (r.kind !== "afc" || !r.captured) return raw;
  return wrappedTap(r, raw, mask);
}

function wrappedTap(r: NdjsonRow, raw: string, mask: MaskRules | null): string {
  const cls = r.failure_class === "poison" || r.failure_class === "transient_schema" ? `,"failure_class":${q(r.failure_class)}` : "";
  const hash = r.idempotency_key !== null && EVENT_HASH.test(r.idempotency_key) ? `,"event_hash":${q(r.idempotency_key)}` : "";
  return (
    `{"kind":"afc","source":${q(free(r.source, mask))},"raw_payload":${raw},"failure_reason":${q(free(r.first_failure_reason, mask))}` +
    `${cls}${hash},"retry_count":${Math.max(0, r.failure_count - 1)},"first_seen_utc":${q(r.first_seen_at)}}`
  );
}

/** A JSON object's text with those of `fields` (name, JSON text) it does not have itself put first. */
function withMissingFieldsFirst(object: string, fields: readonly (readonly [string, string])[]): string {
  const own = ownKeys(object, fields);
  const text = fields
    .filter(([name]) => !own.has(name))
    .map(([name, value]) => `${q(name)}:${value}`)
    .join(",");
  if (text === "") return object;
  const rest = object.trimStart().slice(1);
  return `{${text}${rest.trimStart().startsWith("}") ? "" : ","}${rest}`;
}

/**
 * Which of `fields`' names the object has at its top level. A name that does not occur in the text (even
 * escaped, which needs a backslash) cannot be a key, so most bodies are never parsed here.
 */
function ownKeys(object: string, fields: readonly (readonly [string, string])[]): Set<string> {
  if (!object.includes("\\") && !fields.some(([name]) => object.includes(`"${name}"`))) return new Set();
  let value: unknown;
  try {
    value = parseJsonOrPython(object);
  } catch {
    return new Set();
  }
  return new Set(isJsonObject(value) ? fields.map(([name]) => name).filter((name) => Object.hasOwn(value, name)) : []);
}

/** Whether a pulled AFC body is a dead-letter record (raw_payload holds the tap) rather than the bare tap. */
function hasRawPayload(object: string): boolean {
  if (!object.includes('"raw_payload"')) return false;
  const value = parsePythonJson(object);
  return isJsonObject(value) && Object.hasOwn(value, "raw_payload");
}

export const CSV_COLUMNS = [
  "id",
  "kind",
  "source",
  "idempotency_key",
  "event_id",
  "device_id",
  "source_message_id",
  "entity_key",
  "observed_at",
  "first_seen_at",
  "status",
  "failure_class",
  "class_reason",
  "reason_group",
  "reason",
  "first_failure_reason",
  "replay_count",
  "failure_count",
  "repair_outcome",
  "payload",
  "approved_repair",
  "replay_batch_id",
  "replay_repair",
  "decided_by",
] as const;

/**
 * Text a spreadsheet would run as a formula: =, +, -, @, tab or CR first, or after white space and invisible
 * characters (Unicode White_Space, controls, format and default-ignorable characters such as NBSP or U+200B),
 * which spreadsheets trim or do not show before deciding. Backtracking also matches a tab or CR inside that run.
 */
const FORMULA_START = /^[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]*[=+\-@\t\r]/u;

/**
 * RFC 4180 quoting, and a leading apostrophe on text that a spreadsheet would run as a formula (FORMULA_START):
 * an export opened in Excel must not execute what a producer put in a reason or payload.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(",")}\r\n`;
}

export function csvLine(r: CsvRow, mask: MaskRules | null): string {
  const cells: (string | number | null)[] = [
    r.id,
    r.kind,
    r.source,
    r.idempotency_key,
    maskIdentifier(r.event_id, "event_id", mask),
    maskIdentifier(r.device_id, "device_id", mask),
    maskIdentifier(r.source_message_id, "source_message_id", mask),
    maskEntityKey(r.entity_key, r.kind, mask),
    r.observed_at,
    r.first_seen_at,
    r.status,
    r.failure_class,
    r.class_reason === null ? null : free(r.class_reason, mask),
    free(r.reason_group, mask),
    free(r.reason, mask),
    free(r.first_failure_reason, mask),
    r.replay_count,
    r.failure_count,
    r.outcome,
    r.payload === null ? null : masked(r.payload, mask),
    r.approved_repair,
    r.replay_batch_id,
    r.replay_repair,
    r.decided_by,
  ];
  // Every cell, not only the reasons: a producer's source, key or message id can be a card number too.
  return `${cells.map((c) => csvCell(typeof c === "string" ? free(c, mask) : c)).join(",")}\r\n`;
}

export const GEOJSON_HEAD = '{"type":"FeatureCollection","features":[\n';
export const GEOJSON_TAIL = "\n]}\n";

interface Replay {
  batch_id: string;
  repair: string | null;
  from: string | null;
}

function feature(
  r: GeojsonRow,
  role: "original" | "edited" | "repaired" | "sent",
  geometry: string | null,
  replay: Replay | null,
  mask: MaskRules | null,
): string {
  const replayed =
    replay === null
      ? "null"
      : `{"batch_id":${q(replay.batch_id)},"repair":${replay.repair === null ? "null" : q(replay.repair)},"from":${replay.from === null ? "null" : q(replay.from)}}`;
  const props =
    `{"dead_letter_id":${q(r.id)},"role":${q(role)},"source":${q(free(r.source, mask))},"idempotency_key":${r.idempotency_key === null ? "null" : q(free(r.idempotency_key, mask))},` +
    `"status":${q(r.status)},"failure_class":${q(r.failure_class)},"reason":${q(free(r.reason, mask))},` +
    `"observed_at":${q(r.observed_at)},"repair_outcome":${r.outcome === null ? "null" : q(r.outcome)},` +
    `"approved_repair":${r.approved_repair === null ? "null" : q(r.approved_repair)},"decided_by":${r.decided_by === null ? "null" : q(r.decided_by)},` +
    `"replay":${replayed},` +
    `"feature_properties":${r.properties === null ? "null" : masked(r.properties, mask)}}`;
  return `{"type":"Feature","id":${q(`${r.id}:${role}`)},"geometry":${geometryText(geometry, mask) ?? "null"},"properties":${props}}`;
}

/**
 * The record's features, EPSG:4326: its geometry as received ("original"), the analyst's edit when there is one
 * ("edited", the payload's), and then what was or will be sent: once replayed, the geometry its latest replay sent
 * ("sent", with the repair it was sent with); before, what the analysis's repair produced ("repaired") — unless the
 * approval pinned another repair, whose result is not the analysis's (the record page previews it). Every feature
 * says the approved repair and the latest replay.
 */
export function geojsonFeatures(r: GeojsonRow, mask: MaskRules | null): string[] {
  if (r.kind !== "spatial") return [];
  const replay = r.replay === null ? null : (JSON.parse(r.replay) as Replay);
  const received = r.received_envelope === null ? undefined : receivedGeometry(r.received_envelope);
  const out =
    received === undefined
      ? [feature(r, "original", r.geometry, replay, mask)]
      : [feature(r, "original", JSON.stringify(received), replay, mask), feature(r, "edited", r.geometry, replay, mask)];
  if (replay !== null && r.replay_geometry !== null) {
    out.push(feature(r, "sent", r.replay_geometry, replay, mask));
  } else if (r.repaired_geometry !== null && (r.approved_repair === null || r.approved_repair === r.analysis_repair)) {
    out.push(feature(r, "repaired", r.repaired_geometry, replay, mask));
  }
  return out;
}

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: "application/x-ndjson; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  geojson: "application/geo+json; charset=utf-8",
};

export const EXTENSIONS: Record<ExportFormat, string> = { ndjson: "ndjson", csv: "csv", geojson: "geojson" };
