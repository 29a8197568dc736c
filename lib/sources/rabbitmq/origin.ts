import { createHash } from "node:crypto";
import type { Destination, Headers, Origin } from "../connector";
import { amqpSecondsToIso, toHeaders, toHeaderValue } from "./header-values";

// A message read from a RabbitMQ dead-letter queue, translated to the Origin every source records. Pure:
// the broker's own words are in the headers RabbitMQ writes when it dead-letters a message —
//   x-first-death-exchange|queue|reason  where the message was going and why it first died;
//   x-death  one entry per (queue, reason), newest first: count, time, exchange, routing-keys.
// (3.10 writes no x-last-death-*; 3.13+ adds them, and they are not needed here.)

/** The parts of an amqplib message this reads; amqplib's Message fits it. */
export interface AmqpDeadLetter {
  content: Buffer;
  properties: AmqpProperties;
}

export interface AmqpProperties {
  headers?: Record<string, unknown> | undefined;
  contentType?: unknown;
  contentEncoding?: unknown;
  correlationId?: unknown;
  replyTo?: unknown;
  expiration?: unknown;
  timestamp?: unknown;
  type?: unknown;
  userId?: unknown;
  appId?: unknown;
  priority?: unknown;
  deliveryMode?: unknown;
  messageId?: unknown;
}

/** Recorded under AMQP's own (snake_case) names, so they read as in the broker's documentation. */
const PROPERTY_NAMES = {
  contentType: "content_type",
  contentEncoding: "content_encoding",
  correlationId: "correlation_id",
  replyTo: "reply_to",
  expiration: "expiration",
  timestamp: "timestamp",
  type: "type",
  userId: "user_id",
  appId: "app_id",
  priority: "priority",
  deliveryMode: "delivery_mode",
  messageId: "message_id",
} as const satisfies Record<Exclude<keyof AmqpProperties, "headers">, string>;

interface XDeathEntry {
  queue: string | null;
  reason: string | null;
  count: number | null;
  exchange: string | null;
  routingKeys: string[];
  time: unknown;
}

export function toOrigin(dlq: string, message: AmqpDeadLetter): Origin {
  const raw = message.properties.headers ?? {};
  const deaths = xDeathEntries(raw["x-death"]);
  const firstQueue = text(raw["x-first-death-queue"]);
  const firstReason = text(raw["x-first-death-reason"]);
  // x-death keeps one entry per (queue, reason); the first death's is the one the x-first-death-* headers
  // name. The oldest entry stands in when those headers are missing (a copy made by another tool).
  const first = deaths.find((d) => d.queue === firstQueue && d.reason === firstReason) ?? deaths.at(-1) ?? null;
  const messageId = nonEmptyText(message.properties.messageId);
  return {
    sourceType: "rabbitmq",
    destination: destinationOf(text(raw["x-first-death-exchange"]) ?? first?.exchange ?? null, first, firstQueue),
    deathReason: firstReason ?? first?.reason ?? null,
    // x-death's count: how often the message died in its first queue for that reason. A quorum queue's
    // x-delivery-count is not carried onto the dead letter (3.10); on a quorum DLQ the header that does
    // appear counts deliveries from the DLQ itself, so it is kept in `headers` but is not this number.
    deliveryCount: first?.count ?? null,
    messageId,
    position: positionOf(dlq, messageId, message.content, deaths[0] ? { time: timeToIso(deaths[0].time), count: deaths[0].count } : null),
    publishedAt: typeof message.properties.timestamp === "number" ? amqpSecondsToIso(message.properties.timestamp) : null,
    // The newest death is the one that brought the message into this queue.
    diedAt: timeToIso(deaths[0]?.time),
    headers: toHeaders(raw),
    properties: propertiesOf(message.properties),
  };
}

/** The newest x-death entry: the death that brought the message into this queue. */
export interface LatestDeath {
  time: string | null;
  count: number | null;
}

/**
 * `<dlq>/<message_id>` when the producer set one, else `<dlq>/sha256:<hex of the body>`, then the newest death's
 * time and count (`@<ISO time>#<count>`) when x-death has them. All stay the same when the broker hands the
 * message out again (its delivery tag and, on a quorum DLQ, x-delivery-count do not). The death tells apart a
 * message that died again after a replay (the replay sends no x-* headers, so its x-death starts anew) or a
 * producer reusing a message_id. What is left: two deaths of one message_id within the same second of
 * x-death's clock (count 1 each) share a position; bodies that differ are still told apart by the store.
 */
export function positionOf(dlq: string, messageId: string | null, body: Buffer, death: LatestDeath | null = null): string {
  const where = messageId !== null ? `${dlq}/${messageId}` : `${dlq}/sha256:${createHash("sha256").update(body).digest("hex")}`;
  if (death === null || (death.time === null && death.count === null)) return where;
  return `${where}@${death.time ?? ""}#${death.count ?? ""}`;
}

function destinationOf(exchange: string | null, first: XDeathEntry | null, firstQueue: string | null): Destination {
  return {
    type: "rabbitmq",
    // "" is the default exchange (sendToQueue), a real destination: its routing key is the queue's name.
    exchange: exchange ?? "",
    routingKeys: first?.routingKeys ?? [],
    queue: firstQueue ?? first?.queue ?? null,
  };
}

function xDeathEntries(value: unknown): XDeathEntry[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((e) => ({
    queue: text(e.queue),
    reason: text(e.reason),
    count: typeof e.count === "number" && Number.isFinite(e.count) ? e.count : null,
    exchange: text(e.exchange),
    routingKeys: Array.isArray(e["routing-keys"]) ? e["routing-keys"].filter((k): k is string => typeof k === "string") : [],
    time: e.time,
  }));
}

function timeToIso(time: unknown): string | null {
  const v = toHeaderValue(time);
  return typeof v === "string" && !Number.isNaN(Date.parse(v)) ? v : null;
}

function propertiesOf(props: AmqpProperties): Headers {
  const out: Headers = {};
  for (const [name, wire] of Object.entries(PROPERTY_NAMES) as [keyof typeof PROPERTY_NAMES, string][]) {
    const v = props[name];
    if (v === undefined || v === null) continue;
    out[wire] = name === "timestamp" && typeof v === "number" ? (amqpSecondsToIso(v) ?? v) : toHeaderValue(v);
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

function text(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

function nonEmptyText(v: unknown): string | null {
  const t = text(v);
  return t === null || t === "" ? null : t;
}
