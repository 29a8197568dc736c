import { normalizeAfcRecord, normalizeDeadLetteredTap } from "../../afc/normalize-record";
import { nestsDeeperThan, parseProblem, TOO_DEEP } from "../../json/depth";
import { isJsonObject, parsePythonJson } from "../../json/lossless";
import { suspectText } from "../../json/storable";
import type { JsonValue } from "../../json/value";
import { EMPTY_DRAFT } from "../../spatial/analyze";
import type { GeometryLimits } from "../../spatial/geometry-limits";
import type { Geos } from "../../spatial/geos";
import { normalizeSpatialEnvelope } from "../../spatial/normalize-envelope";
import type { DeadLetterKind, NewDeadLetter, PulledFrom, SpatialAnalysis } from "../../vocabulary/record";
import { createHash } from "node:crypto";
import { prepareRecord, type PreparedRecord } from "../store/prepare-row";
import { DEFAULT_SOURCE_SETTINGS, withFacts, type NormalizeSettings, type SourceSettings } from "./normalize";
import { MAX_RECORD_BYTES } from "./split";
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

/** Why a body over the record limit was stored without it: the same limit as POST's, its size named. */
export function oversizeProblem(bytes: number, maxBytes = MAX_RECORD_BYTES): string {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `the message is ${mb(bytes)} (${bytes} bytes), larger than the ${mb(maxBytes)} a record may be: its body was not kept`;
}

export function normalizePulled(
  b: PulledBody,
  now: Date,
  geos: Geos,
  settings: (source: string) => SourceSettings,
  maxBodyBytes = MAX_RECORD_BYTES,
  limits?: GeometryLimits,
): PulledRecord {
  const pulledFrom: PulledFrom = { source: b.sourceName, messageId: b.messageId, origin: b.origin };
  if (b.problem !== undefined) return unreadable(b, now, b.problem, null);
  // Kept as poison without its body, never acknowledged away unstored: the DLQ drains, the reason says why.
  if (b.body.length > maxBodyBytes)
    return unreadable({ ...b, body: Buffer.alloc(0) }, now, oversizeProblem(b.body.length, maxBodyBytes), "");
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
    const result = normalizeSpatialEnvelope({ ...envelope, source }, text, {
      now,
      geos,
      ...settings(source),
      ...(limits ? { limits } : {}),
    });
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

/** A pulled message normalized and prepared for the store (on an ingest thread), with its body's SHA-256. */
export interface PreparedPulled {
  ok: true;
  index: number;
  record: PreparedRecord;
  unreadable: boolean;
  /** hex SHA-256 of the body as pulled (source_message.body_hash) */
  bodyHash: string;
}

export function bodySha256(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("hex");
}

/**
 * A page of pulled messages → prepared records, in order. No database and nothing shared: it runs on an ingest
 * thread (normalize-pool.ts) like every other arrival's normalization, or here when there is none. A body
 * arrives on a thread as a plain Uint8Array.
 */
export function preparePulled(
  bodies: readonly PulledBody[],
  now: Date,
  geos: Geos,
  settings: NormalizeSettings,
  maxBodyBytes = MAX_RECORD_BYTES,
): PreparedPulled[] {
  const settingsOf = (s: string) => settings.sources?.get(s) ?? settings.defaults ?? DEFAULT_SOURCE_SETTINGS;
  return bodies.map((sent, index) => {
    const bytes: Uint8Array = sent.body;
    const body = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const { record, unreadable } = normalizePulled({ ...sent, body }, now, geos, settingsOf, maxBodyBytes, settings.limits);
    return {
      ok: true,
      index,
      record: withFacts(prepareRecord(record), record, settings.rules, geos),
      unreadable,
      bodyHash: bodySha256(body),
    };
  });
}

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
