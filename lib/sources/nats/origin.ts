import type { Headers, HeaderValue, Origin } from "../connector";
import { deathReason, type Advisory } from "./advisory";

// From an advisory and the stream message it points at to the Origin Redrive stores. Pure.

/** The parts of a stored stream message (jsm.streams.getMessage) the origin needs. */
export interface StoredMessage {
  subject: string;
  seq: number;
  /** the server's RFC 3339 time, to the nanosecond */
  timestamp: string;
  headers: Iterable<[string, string[]]> | undefined;
}

/**
 * Which instance of its stream an advisory's message lived in. A stream deleted and created again under its name
 * starts its sequences at 1, so `stream:seq` alone would name two messages; the stream's creation time (stream
 * info `created`) tells the instances apart. An advisory older than the stream now under that name, or for a
 * stream that no longer exists, is about a message that is gone: its own id is all that names it.
 */
export type StreamInstance = { created: string } | { gone: true };

/**
 * A dead letter is one stream message: every consumer that gives up on it names the same position,
 * `<stream>:<seq>@<stream created>`; `<stream>:<seq>@advisory:<id>` when its stream instance is gone.
 */
export function positionOf(advisory: Pick<Advisory, "stream" | "stream_seq" | "id">, instance: StreamInstance): string {
  const where = `${advisory.stream}:${advisory.stream_seq}`;
  return "created" in instance ? `${where}@${instance.created}` : `${where}@advisory:${advisory.id}`;
}

/**
 * The instance an advisory's message lived in: the stream as it is now (its `created`, or null when it does not
 * exist), unless the advisory predates it. Times the server wrote that cannot be read count as this instance.
 */
export function instanceOf(advisory: Pick<Advisory, "timestamp">, created: string | null): StreamInstance {
  if (created === null) return { gone: true };
  const died = utcMicros(advisory.timestamp);
  const born = utcMicros(created);
  return died !== null && born !== null && died < born ? { gone: true } : { created };
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The server writes nanoseconds ("2026-12-01T15:06:25.718012226Z"), sometimes with an offset; Redrive stores
 * instants to the microsecond in UTC, so this keeps six digits rather than the three a Date would.
 */
export function utcMicros(timestamp: string): string | null {
  const m = RFC3339.exec(timestamp);
  if (!m) return null;
  const [, date, time, fraction = "", zone = "Z"] = m;
  const seconds = new Date(`${date}T${time}${zone.toUpperCase()}`);
  if (Number.isNaN(seconds.getTime())) return null;
  return `${seconds.toISOString().slice(0, 19)}.${fraction.slice(0, 6).padEnd(6, "0")}Z`;
}

/** NATS headers as JSON: one value stays a string, a repeated header becomes an array in the order received. */
export function headersToJson(headers: Iterable<[string, string[]]> | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, values] of headers ?? []) {
    const previous = out[key];
    const all = previous === undefined ? values : [...(typeof previous === "string" ? [previous] : previous), ...values];
    if (all.length === 1 && all[0] !== undefined) out[key] = all[0];
    else if (all.length > 1) out[key] = [...all];
  }
  return out;
}

function advisoryProperties(advisory: Advisory, consumers: readonly string[]): Headers {
  const props: Record<string, HeaderValue> = {
    consumer: advisory.consumer,
    advisoryId: advisory.id,
  };
  // More than one consumer gave up on the same message (a source for every consumer of the stream).
  if (consumers.length > 1) props.consumers = [...consumers];
  if (advisory.consumer_seq !== undefined) props.consumerSeq = advisory.consumer_seq;
  if (advisory.reason !== undefined) props.reason = advisory.reason;
  if (advisory.domain !== undefined) props.domain = advisory.domain;
  return props;
}

function baseOrigin(advisory: Advisory, instance: StreamInstance, subject: string, consumers: readonly string[]): Origin {
  return {
    sourceType: "nats",
    destination: { type: "nats", subject, stream: advisory.stream },
    deathReason: deathReason(advisory),
    deliveryCount: advisory.deliveries,
    messageId: String(advisory.stream_seq),
    position: positionOf(advisory, instance),
    publishedAt: null,
    diedAt: utcMicros(advisory.timestamp),
    headers: {},
    properties: advisoryProperties(advisory, consumers),
  };
}

/** `consumers`: every consumer whose advisory for this message came in the same batch, first one first. */
export function deadLetterOrigin(
  advisory: Advisory,
  instance: StreamInstance,
  stored: StoredMessage,
  consumers: readonly string[] = [advisory.consumer],
): Origin {
  const headers = headersToJson(stored.headers);
  return {
    ...baseOrigin(advisory, instance, stored.subject, consumers),
    messageId: producerMessageId(headers) ?? String(advisory.stream_seq),
    publishedAt: utcMicros(stored.timestamp),
    headers,
  };
}

/**
 * The id the producer gave the message (the `Nats-Msg-Id` header JetStream deduplicates on), which is what an
 * investigator has in hand, as AMQP's message_id is for RabbitMQ; the stream sequence stays in the position.
 */
function producerMessageId(headers: Record<string, string | string[]>): string | null {
  const id = headers["Nats-Msg-Id"];
  const first = Array.isArray(id) ? id[0] : id;
  return first !== undefined && first.trim() !== "" ? first : null;
}

/**
 * The advisory points at a message that is no longer in its stream (deleted, aged out, the stream removed):
 * the subject is unknown, so the destination's is empty and the record can only be kept, never replayed.
 */
export function missingMessageOrigin(
  advisory: Advisory,
  instance: StreamInstance,
  consumers: readonly string[] = [advisory.consumer],
): Origin {
  return baseOrigin(advisory, instance, "", consumers);
}

/** An advisory that could not be read: kept under its own place in the advisory stream so a person can look. */
export function unreadableAdvisoryOrigin(advisoryStream: string, advisorySeq: number | null, subject: string): Origin {
  return {
    sourceType: "nats",
    destination: { type: "nats", subject: "", stream: "" },
    deathReason: null,
    deliveryCount: null,
    messageId: null,
    position: `advisory:${advisoryStream}:${advisorySeq ?? "unknown"}`,
    publishedAt: null,
    diedAt: null,
    headers: {},
    properties: { advisorySubject: subject },
  };
}
