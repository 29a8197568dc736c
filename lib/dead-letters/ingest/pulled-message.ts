import { normalizeAfcRecord, normalizeDeadLetteredTap } from "../../afc/normalize-record";
import { nestsDeeperThan, parseProblem, TOO_DEEP } from "../../json/depth";
import { isJsonObject, parsePythonJson } from "../../json/lossless";
import { suspectText } from "../../json/storable";
import type { JsonValue } from "../../json/value";
import { EMPTY_DRAFT } from "../../spatial/analyze";
import type { Geos } from "../../spatial/geos";
import { normalizeSpatialEnvelope } from "../../spatial/normalize-envelope";
import type { DeadLetterKind, NewDeadLetter, PulledFrom, SpatialAnalysis } from "../../vocabulary/record";
import { DEFAULT_SOURCE_SETTINGS, type SourceSettings } from "./normalize";
import { unstorableProblem } from "./storable-record";

// A message pulled from a broker's dead-letter location → the record POST /api/dead-letters would make of the
// same body (a spatial envelope; an AFC capture record with raw_payload; or a raw tap), so keys, hashes, validity
// and reasons are the same whichever way a dead letter arrives. What cannot be read (not UTF-8, not JSON, not an
// envelope, a value PostgreSQL cannot store) is still kept, as a poison record whose raw text (or base64 of its
// bytes) and reason say why: the DLQ drains and nothing is dropped.

/** The class reason of a pulled message that could not be read: its record holds the raw text, not an envelope. */
export const UNREADABLE_CLASS_REASON = "unreadable: the body could not be read as a dead letter";

export interface PulledBody {
  body: Buffer;
  /** how the source reads bodies */
  kind: DeadLetterKind;
  sourceName: string;
  sourceType: string;
  /** the broker's word for why it gave up (rejected, max_deliveries, …) */
  deathReason: string | null;
  messageId: string | null;
  /** ISO 8601, when the broker says */
  publishedAt: string | null;
  /** the whole provenance, stored with the record */
  origin: JsonValue;
  /** the broker reported a dead letter whose body is gone */
  problem?: string;
}

export interface PulledRecord {
  record: NewDeadLetter;
  /** kept as poison because it could not be read as the source's kind */
  unreadable: boolean;
}

/** The reason a record gets when its envelope gives none: the broker's. */
export function deathReasonText(b: Pick<PulledBody, "sourceType" | "deathReason">): string {
  return `dead-lettered by ${b.sourceType}: ${b.deathReason ?? "no reason given"}`;
}

export function normalizePulled(b: PulledBody, now: Date, geos: Geos, settings: (source: string) => SourceSettings): PulledRecord {
  const pulledFrom: PulledFrom = { source: b.sourceName, messageId: b.messageId, origin: b.origin };
  if (b.problem !== undefined) return unreadable(b, now, b.problem, null);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(b.body);
  } catch {
    return unreadable(b, now, "the body is not valid UTF-8 (kept as base64)", null);
  }
  let value: unknown;
  try {
    value = parsePythonJson(text);
  } catch (e) {
    return unreadable(b, now, `the body is not JSON: ${parseProblem(e)}`, text);
  }
  if (!isJsonObject(value)) return unreadable(b, now, "the body is not a JSON object", text);
  if (nestsDeeperThan(value)) return unreadable(b, now, `the body ${TOO_DEEP}`, text);
  const declared = value.kind;
  if (declared !== undefined && declared !== b.kind) {
    return unreadable(b, now, `the body's kind is ${JSON.stringify(declared)} but the source reads ${b.kind}`, text);
  }
  let record: NewDeadLetter;
  if (b.kind === "spatial") {
    // The envelope as POST takes it; one without a reason of its own carries the broker's.
    const envelope = { ...value, kind: "spatial", dead_letter_reason: value.dead_letter_reason ?? deathReasonText(b) };
    const source = typeof value.source === "string" ? value.source : b.sourceName;
    const result = normalizeSpatialEnvelope({ ...envelope, source }, text, { now, geos, ...settings(source) });
    if (!result.ok) return unreadable(b, now, `not a spatial envelope: ${describe(result.errors)}`, text);
    record = result.record;
  } else if (Object.hasOwn(value, "raw_payload")) {
    const envelope = {
      ...value,
      kind: "afc",
      failure_reason: value.failure_reason ?? deathReasonText(b),
      source: value.source ?? b.sourceName,
    };
    const result = normalizeAfcRecord(envelope, text, { now });
    if (!result.ok) return unreadable(b, now, `not an AFC dead-letter record: ${describe(result.errors)}`, text);
    record = result.record;
  } else {
    record = normalizeDeadLetteredTap(value, text, { now, source: b.sourceName, reason: deathReasonText(b) });
  }
  const bad = unstorableProblem(record, suspectText(text));
  if (bad !== null) return unreadable(b, now, `${bad.path} ${bad.message}`, null);
  return { record: { ...record, sourceMessageId: record.sourceMessageId ?? b.messageId, origin: pulledFrom }, unreadable: false };
}

export { DEFAULT_SOURCE_SETTINGS };

function describe(errors: { path: string; message: string }[]): string {
  const shown = errors.slice(0, 3).map((e) => `${e.path} ${e.message}`);
  return errors.length > 3 ? `${shown.join("; ")}; and ${errors.length - 3} more` : shown.join("; ");
}

/** Text PostgreSQL can store as it is; anything else travels as base64 of the bytes. */
function storableText(b: PulledBody, text: string | null): { raw: string; payload: JsonValue } {
  if (text !== null && !text.includes("\0") && text.isWellFormed()) return { raw: text, payload: text };
  const base64 = b.body.toString("base64");
  return { raw: base64, payload: { base64 } };
}

function unreadable(b: PulledBody, now: Date, why: string, text: string | null): PulledRecord {
  const reason = `unreadable message (${deathReasonText(b)}): ${why}`;
  const { raw, payload } = storableText(b, text);
  const published = b.publishedAt ? new Date(b.publishedAt) : null;
  const observedAt = published && !Number.isNaN(published.getTime()) ? published : now;
  return {
    unreadable: true,
    record: {
      kind: b.kind,
      source: b.sourceName,
      idempotencyKey: null,
      entityKey: null,
      eventId: null,
      deviceId: null,
      sourceMessageId: b.messageId,
      observedAt,
      firstSeenAt: now,
      rawEnvelope: raw,
      payload,
      failureReason: reason,
      failureClass: "poison",
      classReason: UNREADABLE_CLASS_REASON,
      replayCount: 0,
      origin: { source: b.sourceName, messageId: b.messageId, origin: b.origin },
      spatial: b.kind === "spatial" ? { analysis: unreadableAnalysis(why), repairedGeometry: null, bbox: null } : null,
    },
  };
}

function unreadableAnalysis(why: string): SpatialAnalysis {
  const { method, policy } = DEFAULT_SOURCE_SETTINGS;
  return { ...EMPTY_DRAFT, reason: why, drop_reason: why, method, policy, crs: "EPSG:4326" };
}
