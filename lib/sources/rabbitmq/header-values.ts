import type { HeaderValue, Headers } from "../connector";

// AMQP field-table values as amqplib decodes them, to JSON and back. amqplib hands out byte arrays as
// Buffers, timestamps and decimals as tagged objects ({"!": "timestamp", value: <seconds>}), every integer
// (int64 too, already rounded past 2^53) as a number. The stored record is JSON, so each becomes a value
// JSON keeps exactly: bytes as {"base64": "…"}, timestamps as ISO 8601 UTC strings.

/** 9999-12-31T23:59:59Z: beyond it toISOString writes an expanded year ("+010000-…") that is no plain ISO 8601. */
const LAST_ISO_SECOND = 253_402_300_799;

/** An AMQP timestamp (seconds since the epoch, per the spec) as ISO 8601 UTC, or null when it is no such date. */
export function amqpSecondsToIso(seconds: number): string | null {
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > LAST_ISO_SECOND) return null;
  return new Date(seconds * 1000).toISOString();
}

export function isoToAmqpSeconds(iso: string): number | null {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

export function toHeaderValue(value: unknown): HeaderValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // NaN and ±Infinity (AMQP doubles may carry them) would turn into null in JSON.
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value.toString();
    case "object":
      return objectToHeaderValue(value);
    default:
      return String(value);
  }
}

function objectToHeaderValue(value: object): HeaderValue {
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return { base64: Buffer.from(value).toString("base64") };
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(toHeaderValue);
  const tagged = taggedValue(value);
  if (tagged !== undefined) return tagged;
  return toHeaders(value as Record<string, unknown>);
}

/** amqplib's typed values: timestamps and decimals. */
function taggedValue(value: object): HeaderValue | undefined {
  if (!("!" in value) || !("value" in value)) return undefined;
  const inner = value.value;
  if (value["!"] === "timestamp" && typeof inner === "number") return amqpSecondsToIso(inner) ?? inner;
  if (value["!"] === "decimal" && typeof inner === "object" && inner !== null && "places" in inner && "digits" in inner) {
    const { places, digits } = inner;
    if (typeof places === "number" && typeof digits === "number") return decimalText(digits, places);
  }
  return undefined;
}

/** AMQP's decimal (an unsigned integer and a count of decimal places) as exact text: 12345, 2 → "123.45". */
export function decimalText(digits: number, places: number): string {
  const text = String(digits);
  if (places <= 0) return text;
  const padded = text.padStart(places + 1, "0");
  return `${padded.slice(0, -places)}.${padded.slice(-places)}`;
}

export function toHeaders(table: Record<string, unknown>): Headers {
  const out: Headers = {};
  for (const [key, v] of Object.entries(table)) out[key] = toHeaderValue(v);
  return out;
}

/**
 * A stored header value back into something amqplib encodes: {"base64": "…"} (the only object with that
 * single key this module writes) becomes bytes again. Timestamps stay strings: a stored ISO string cannot be
 * told apart from a header that was text all along.
 */
export function toAmqpValue(value: HeaderValue): unknown {
  if (Array.isArray(value)) return value.map(toAmqpValue);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === "base64" && typeof value.base64 === "string") return Buffer.from(value.base64, "base64");
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = toAmqpValue(v);
  return out;
}
