import { indexedTextProblem, PG_INT_MAX } from "../../db/column-limits";
import { isJsonObject } from "../../json/lossless";
import { unstorable } from "../../json/storable";
import { inTimeRange } from "../../time/range";
import type { FieldError, NewDeadLetter } from "../../vocabulary/record";

// Whether a normalized record fits PostgreSQL's columns, checked before it is prepared for storage, so one value
// cannot fail a whole ingest batch or capture request.

/**
 * The same search over a normalized record — what is actually stored, wherever the value came from (an AFC
 * raw_payload sent as a string of JSON is parsed again when normalized, turning escapes into characters). Paths
 * name the envelope's fields; `payloadPath` is where the payload sits in it ("" when the payload is the input).
 */
export function unstorableRecord(r: NewDeadLetter, payloadPath: string = r.kind === "afc" ? "raw_payload" : "feature"): FieldError | null {
  // The payload first: a field also copied out of it (event_id, device_id) is then named where it was sent.
  const fields: [string, unknown][] = [
    [payloadPath, r.payload],
    ["source", r.source],
    ["idempotency_key", r.idempotencyKey],
    ["entity_key", r.entityKey],
    ["event_id", r.eventId],
    ["device_id", r.deviceId],
    ["source_message_id", r.sourceMessageId],
    ["dead_letter_reason", r.failureReason],
    ["class_reason", r.classReason],
    ["(raw envelope)", r.rawEnvelope],
    ["(analysis)", r.spatial?.analysis ?? null],
    ["(repaired geometry)", r.spatial?.repairedGeometry ?? null],
  ];
  for (const [path, value] of fields) {
    const found = unstorable(value, path);
    if (found) return found;
  }
  return null;
}

/**
 * Where a record's entity key was sent: an AFC tap's device_id; a feature's id, or the feature property a source
 * names as its entity key (lib/dead-letters/ingest/ingest.ts reads source_config) — found by its value in the payload.
 */
function entityKeyPath(r: NewDeadLetter): string {
  if (r.kind === "afc") return "device_id";
  const feature = isJsonObject(r.payload) ? r.payload : {};
  if (feature.id === r.entityKey || !isJsonObject(feature.properties)) return "feature.id";
  const properties = feature.properties;
  const property = Object.keys(properties).find((k) => properties[k] === r.entityKey);
  return property === undefined ? "feature.id" : `feature.properties.${property}`;
}

/** The record's text columns that are B-tree indexed, by the envelope field they came from. */
function indexedFields(r: NewDeadLetter): [string, string | null][] {
  return [
    ["source", r.source],
    ["idempotency_key", r.idempotencyKey],
    [entityKeyPath(r), r.entityKey],
    ["event_id", r.eventId],
    ["device_id", r.deviceId],
    ["source_message_id", r.sourceMessageId],
  ];
}

/**
 * Values PostgreSQL's columns cannot hold: a replay count beyond `integer`, a time outside years 1–9999 (JavaScript
 * reaches ±275,760 and year 0, which PostgreSQL refuses or RFC 3339 cannot write), an indexed key or id too long
 * for its index (column-limits.ts). Cheap: checked on every record.
 */
export function outOfRange(r: NewDeadLetter): FieldError | null {
  if (r.replayCount > PG_INT_MAX) {
    return { path: r.kind === "afc" ? "retry_count" : "replay_count", message: `must be at most ${PG_INT_MAX.toLocaleString("en")}` };
  }
  for (const [path, date] of [
    [r.kind === "afc" ? "tap_timestamp" : "observed_at", r.observedAt],
    [r.kind === "afc" ? "first_seen_utc" : "first_seen", r.firstSeenAt],
  ] as const) {
    if (!inTimeRange(date)) return { path, message: `is out of range (year ${date.getUTCFullYear()}; years 1–9999 can be stored)` };
  }
  for (const [path, value] of indexedFields(r)) {
    const message = value === null ? null : indexedTextProblem(value);
    if (message) return { path, message };
  }
  return null;
}

/**
 * Why a normalized record cannot be stored, or null: what the columns cannot hold (always checked: three
 * comparisons) and, when the input held a suspect escape (suspectText), what text and jsonb cannot hold.
 * Ingest and capture both ask this before preparing a record, so neither fails a whole batch over one value.
 */
export function unstorableProblem(r: NewDeadLetter, suspect: boolean, payloadPath?: string): FieldError | null {
  return outOfRange(r) ?? (suspect ? unstorableRecord(r, payloadPath) : null);
}
