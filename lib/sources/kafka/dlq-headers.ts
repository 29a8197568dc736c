import { isUtf8 } from "node:buffer";
import type { HeaderValue, Headers } from "../connector";

// Kafka headers are (name, bytes) pairs, a name may repeat. Two dead-letter conventions put the failed record's
// provenance in them, each written its own way:
// - Kafka Connect (errors.deadletterqueue.context.headers.enable=true; DeadLetterQueueReporter) writes every value
//   as UTF-8 text, numbers included;
// - Spring Kafka's DeadLetterPublishingRecoverer writes the original partition as a 4-byte big-endian int, the
//   original offset and timestamp as 8-byte big-endian longs (ByteBuffer.putInt/putLong), the rest as UTF-8.
// Pure.

export type RawHeader = readonly [name: string, value: Buffer];

export const CONNECT_PREFIX = "__connect.errors.";
export const SPRING_PREFIX = "kafka_dlt-";

/** Headers that describe the dead-lettering itself: they stay with the record, never travel back to the origin. */
export function isDlqContextHeader(name: string): boolean {
  return name.startsWith(CONNECT_PREFIX) || name.startsWith(SPRING_PREFIX);
}

export interface DlqContext {
  convention: "spring" | "kafka-connect" | null;
  /** where the record was before it failed */
  topic: string | null;
  partition: number | null;
  /** decimal: a Kafka offset is a 64-bit long */
  offset: string | null;
  /** ISO 8601 UTC (Spring only) */
  timestamp: string | null;
  timestampType: string | null;
  consumerGroup: string | null;
  exceptionClass: string | null;
  causeClass: string | null;
  exceptionMessage: string | null;
  /** Kafka Connect's connector, task, stage (KEY_CONVERTER, TRANSFORMATION, …) and the class that failed */
  connector: string | null;
  taskId: string | null;
  stage: string | null;
  className: string | null;
  /** headers that were present but not as their writer writes them: kept raw, named here */
  problems: string[];
}

// Text only when it is UTF-8 without control characters (tab, LF, CR aside): PostgreSQL's jsonb refuses \u0000,
// and a 4-byte int such as Spring's partition is valid UTF-8 but no text.
function isText(bytes: Buffer): boolean {
  if (!isUtf8(bytes)) return false;
  for (const b of bytes) if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f) return false;
  return true;
}

/** A header's bytes as JSON: text as a string, anything else as { base64 }. */
export function headerValue(bytes: Buffer): HeaderValue {
  return isText(bytes) ? bytes.toString("utf8") : { base64: bytes.toString("base64") };
}

/** The bytes a stored header value stands for (the inverse of headerValue; other JSON as its text). */
export function headerBytes(value: HeaderValue): Buffer {
  if (typeof value === "string") return Buffer.from(value, "utf8");
  if (value !== null && typeof value === "object" && !Array.isArray(value) && typeof value.base64 === "string") {
    return Buffer.from(value.base64, "base64");
  }
  return Buffer.from(value === null ? "" : JSON.stringify(value), "utf8");
}

/** All headers as JSON, in order; a repeated name becomes an array. `__proto__` stays an own key. */
export function headersToJson(raw: readonly RawHeader[]): Headers {
  const out: Headers = {};
  for (const [name, bytes] of raw) {
    const v = headerValue(bytes);
    const previous = Object.hasOwn(out, name) ? out[name] : undefined;
    // A single value is a string or { base64 }, never an array: an array is always a repeated name.
    const next = previous === undefined ? v : Array.isArray(previous) ? [...previous, v] : [previous, v];
    Object.defineProperty(out, name, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Each header as its pairs again: a JSON array is a repeated header. */
export function jsonToHeaders(headers: Headers): RawHeader[] {
  const out: RawHeader[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) out.push([name, headerBytes(v)]);
  }
  return out;
}

function lastText(raw: readonly RawHeader[], name: string): string | null {
  for (let i = raw.length - 1; i >= 0; i--) {
    const h = raw[i];
    if (h && h[0] === name) return h[1].toString("utf8");
  }
  return null;
}

function firstBytes(raw: readonly RawHeader[], name: string): Buffer | null {
  return raw.find((h) => h[0] === name)?.[1] ?? null;
}

const DECIMAL = /^-?\d{1,19}$/;

function springContext(raw: readonly RawHeader[]): DlqContext {
  const problems: string[] = [];
  const s = (suffix: string) => `${SPRING_PREFIX}${suffix}`;
  // Spring keeps the first original-* headers when a record is dead-lettered again; exception headers are the
  // newest (the last written).
  const fixed = (suffix: string, size: 4 | 8): bigint | null => {
    const bytes = firstBytes(raw, s(suffix));
    if (bytes === null) return null;
    if (bytes.length !== size) {
      problems.push(`${s(suffix)} is ${bytes.length} bytes, not the ${size}-byte big-endian number Spring writes`);
      return null;
    }
    return size === 4 ? BigInt(bytes.readInt32BE(0)) : bytes.readBigInt64BE(0);
  };
  const partition = fixed("original-partition", 4);
  const offset = fixed("original-offset", 8);
  const ts = fixed("original-timestamp", 8);
  const date = ts === null ? null : new Date(Number(ts));
  const text = (suffix: string) => firstBytes(raw, s(suffix))?.toString("utf8") ?? null;
  return {
    convention: "spring",
    topic: text("original-topic"),
    partition: partition === null ? null : Number(partition),
    offset: offset === null ? null : offset.toString(),
    timestamp: date && !Number.isNaN(date.getTime()) ? date.toISOString() : null,
    timestampType: text("original-timestamp-type"),
    consumerGroup: text("original-consumer-group"),
    exceptionClass: lastText(raw, s("exception-fqcn")) ?? lastText(raw, s("key-exception-fqcn")),
    causeClass: lastText(raw, s("exception-cause-fqcn")),
    exceptionMessage: lastText(raw, s("exception-message")) ?? lastText(raw, s("key-exception-message")),
    connector: null,
    taskId: null,
    stage: null,
    className: null,
    problems,
  };
}

function connectContext(raw: readonly RawHeader[]): DlqContext {
  const problems: string[] = [];
  const c = (suffix: string) => lastText(raw, `${CONNECT_PREFIX}${suffix}`);
  const number = (suffix: string): string | null => {
    const v = c(suffix);
    if (v === null) return null;
    if (DECIMAL.test(v.trim())) return BigInt(v.trim()).toString();
    problems.push(`${CONNECT_PREFIX}${suffix} is not a decimal number`);
    return null;
  };
  const partition = number("partition");
  return {
    convention: "kafka-connect",
    topic: c("topic"),
    partition: partition === null ? null : Number(partition),
    offset: number("offset"),
    timestamp: null,
    timestampType: null,
    consumerGroup: null,
    exceptionClass: c("exception.class.name"),
    causeClass: null,
    exceptionMessage: c("exception.message"),
    connector: c("connector.name"),
    taskId: c("task.id"),
    stage: c("stage"),
    className: c("class.name"),
    problems,
  };
}

const NONE: DlqContext = {
  convention: null,
  topic: null,
  partition: null,
  offset: null,
  timestamp: null,
  timestampType: null,
  consumerGroup: null,
  exceptionClass: null,
  causeClass: null,
  exceptionMessage: null,
  connector: null,
  taskId: null,
  stage: null,
  className: null,
  problems: [],
};

/** The failed record's provenance, from whichever convention wrote the headers (Spring's when both did). */
export function dlqContext(raw: readonly RawHeader[]): DlqContext {
  if (raw.some((h) => h[0].startsWith(SPRING_PREFIX))) return springContext(raw);
  if (raw.some((h) => h[0].startsWith(CONNECT_PREFIX))) return connectContext(raw);
  return { ...NONE, problems: [] };
}
