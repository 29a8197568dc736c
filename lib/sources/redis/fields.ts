import { isUtf8 } from "node:buffer";
import type { HeaderValue, Headers } from "../connector";

// A stream entry is a flat list of field/value byte strings. Redrive keeps the body field's bytes as they are and
// turns every other field into a JSON-safe header: UTF-8 text as a string, other bytes as { base64 }, and a field
// that occurs more than once (XADD allows it) as an array in order. `toFieldArgs` undoes exactly that, so an
// entry published back carries the same fields it had when it died.

export interface DecodedFields {
  /** the first occurrence of the body field; null when the entry has none */
  body: Buffer | null;
  headers: Headers;
  /** field names in entry order, for saying which fields an entry had */
  names: string[];
}

function headerValue(bytes: Buffer): HeaderValue {
  return isUtf8(bytes) ? bytes.toString("utf8") : { base64: bytes.toString("base64") };
}

export function decodeFields(pairs: readonly Buffer[], bodyField: string): DecodedFields {
  let body: Buffer | null = null;
  const headers: Headers = {};
  const names: string[] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const name = (pairs[i] as Buffer).toString("utf8");
    const value = pairs[i + 1] as Buffer;
    names.push(name);
    if (name === bodyField && body === null) {
      body = value;
      continue;
    }
    const decoded = headerValue(value);
    const prior = Object.hasOwn(headers, name) ? headers[name] : undefined;
    setHeader(headers, name, prior === undefined ? decoded : Array.isArray(prior) ? [...prior, decoded] : [prior, decoded]);
  }
  return { body, headers, names };
}

// defineProperty, not assignment: a field named "__proto__" is a header like any other.
function setHeader(headers: Headers, name: string, value: HeaderValue): void {
  Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
}

function isBase64(v: HeaderValue): v is { base64: string } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && typeof v.base64 === "string";
}

function fieldBytes(v: HeaderValue): string | Buffer {
  if (typeof v === "string") return v;
  if (isBase64(v)) return Buffer.from(v.base64, "base64");
  if (v === null) return "";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** XADD's field/value arguments: the body field first, then every header as it was received. */
export function toFieldArgs(bodyField: string, body: Buffer, headers: Headers): Array<string | Buffer> {
  const args: Array<string | Buffer> = [bodyField, body];
  for (const [name, value] of Object.entries(headers)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) args.push(name, fieldBytes(v));
  }
  return args;
}
