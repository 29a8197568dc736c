import { createHash } from "node:crypto";
import type { Destination, HeaderValue, Headers, Origin } from "../connector";

// SQS messages in Redrive's terms and back. Pure: the connector feeds it what ReceiveMessage returned, and sends
// what it builds.
//
// Message attributes become headers that keep their data type, so they go back as they came: a String attribute
// is its text; any other type is `{ dataType, value }`, and a binary one `{ dataType, base64 }`. System attributes
// (SentTimestamp, ApproximateReceiveCount, MessageGroupId, DeadLetterQueueSourceArn, …) are the properties, as SQS
// gave them (strings).

/** The shape of a received message that matters here (the SDK's Message, its attribute maps loosened). */
export interface ReceivedMessage {
  MessageId?: string | undefined;
  Body?: string | undefined;
  Attributes?: Partial<Record<string, string>> | undefined;
  MessageAttributes?: Record<string, MessageAttribute> | undefined;
}

export interface MessageAttribute {
  DataType?: string | undefined;
  StringValue?: string | undefined;
  BinaryValue?: Uint8Array | undefined;
}

/** A message attribute as SendMessage takes it. */
export type SendAttribute = { DataType: string; StringValue: string } | { DataType: string; BinaryValue: Uint8Array };

/** Where a dead letter goes back: SQS's DeadLetterQueueSourceArn when it gives one, else the source's option. */
export type SqsDestination = Extract<Destination, { type: "sqs" }>;

/** The one SQS reason: the message was received maxReceiveCount times without being deleted (a redrive policy). */
export const DEATH_REASON = "max_receive_count";

export function decodeAttributes(attributes: Record<string, MessageAttribute> | undefined): Headers {
  const out: Headers = {};
  for (const [name, a] of Object.entries(attributes ?? {})) {
    const type = a.DataType ?? "String";
    if (a.BinaryValue !== undefined) out[name] = { dataType: type, base64: Buffer.from(a.BinaryValue).toString("base64") };
    else if (type === "String") out[name] = a.StringValue ?? "";
    else out[name] = { dataType: type, value: a.StringValue ?? "" };
  }
  return out;
}

/** Headers back to message attributes; null with the header's name when one is not in decodeAttributes' shape. */
export function encodeAttributes(headers: Headers): { ok: true; attributes: Record<string, SendAttribute> } | { ok: false; name: string } {
  const attributes: Record<string, SendAttribute> = {};
  for (const [name, v] of Object.entries(headers)) {
    const a = attributeOf(v);
    if (!a) return { ok: false, name };
    attributes[name] = a;
  }
  return { ok: true, attributes };
}

function attributeOf(v: HeaderValue): SendAttribute | null {
  if (typeof v === "string") return { DataType: "String", StringValue: v };
  if (v === null || typeof v !== "object" || Array.isArray(v) || typeof v.dataType !== "string") return null;
  if (typeof v.base64 === "string") return { DataType: v.dataType, BinaryValue: Buffer.from(v.base64, "base64") };
  if (typeof v.value === "string") return { DataType: v.dataType, StringValue: v.value };
  return null;
}

function isoOfMillis(ms: string | undefined): string | null {
  if (ms === undefined || !/^\d+$/.test(ms)) return null;
  const d = new Date(Number(ms));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export interface ReadContext {
  /** the dead-letter queue's name, which positions are made of */
  queueName: string;
  /** the source's sourceQueueUrl option */
  sourceQueueUrl: string | null;
}

export interface Translated {
  body: Buffer;
  origin: Origin;
  problem?: string;
}

export function toPulled(m: ReceivedMessage, ctx: ReadContext): Translated {
  const attrs = m.Attributes ?? {};
  const properties: Headers = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) properties[k] = v;
  const receives = attrs.ApproximateReceiveCount;
  const messageId = m.MessageId ?? "";
  const destination: SqsDestination = {
    type: "sqs",
    queueArn: attrs.DeadLetterQueueSourceArn ?? null,
    queueUrl: ctx.sourceQueueUrl,
  };
  const origin: Origin = {
    sourceType: "sqs",
    destination,
    deathReason: DEATH_REASON,
    // SQS counts on: a message moved to the dead-letter queue keeps its count, and Redrive's own receive adds one.
    deliveryCount: receives !== undefined && /^\d+$/.test(receives) ? Number(receives) : null,
    messageId: messageId || null,
    // SQS gives every message, and every re-send of one, a new MessageId: it names this message instance.
    position: `${ctx.queueName}/${messageId}`,
    publishedAt: isoOfMillis(attrs.SentTimestamp),
    // SQS records no time of the move to the dead-letter queue.
    diedAt: null,
    headers: decodeAttributes(m.MessageAttributes),
    properties,
  };
  if (m.Body === undefined) return { body: Buffer.alloc(0), origin, problem: `message ${messageId} came without a body` };
  return { body: Buffer.from(m.Body, "utf8"), origin };
}

export interface QueueArn {
  region: string;
  account: string;
  name: string;
}

/** arn:<partition>:sqs:<region>:<account>:<queue name>, or null. */
export function parseQueueArn(arn: string): QueueArn | null {
  const m = /^arn:aws(?:-[a-z-]+)?:sqs:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_-]{1,80}(?:\.fifo)?)$/.exec(arn);
  return m ? { region: m[1]!, account: m[2]!, name: m[3]! } : null;
}

export type SendTarget =
  | { ok: true; by: "arn"; arn: QueueArn; fifo: boolean }
  | { ok: true; by: "url"; url: string; fifo: boolean }
  | { ok: false; reason: string };

/** Which queue a dead letter goes back to, or why it cannot go back. */
export function sendTarget(d: SqsDestination): SendTarget {
  if (d.queueArn !== null) {
    const arn = parseQueueArn(d.queueArn);
    if (arn) return { ok: true, by: "arn", arn, fifo: arn.name.endsWith(".fifo") };
    return { ok: false, reason: `DeadLetterQueueSourceArn "${d.queueArn}" is not an SQS queue ARN` };
  }
  if (d.queueUrl !== null) {
    const name = new URL(d.queueUrl).pathname.split("/").filter(Boolean).pop() ?? "";
    return { ok: true, by: "url", url: d.queueUrl, fifo: name.endsWith(".fifo") };
  }
  return {
    ok: false,
    reason:
      "SQS did not say which queue the message came from (no DeadLetterQueueSourceArn) and the source has no sourceQueueUrl: " +
      "set the source's sourceQueueUrl option, then pull again",
  };
}

/** SQS's limit on a MessageDeduplicationId, and the characters it takes (ASCII letters, digits, punctuation). */
const DEDUP_MAX = 128;
const DEDUP_CHARS = /^[\x21-\x7e]+$/;

/**
 * A FIFO queue's MessageDeduplicationId for a stored key: the key itself, so SQS's five-minute deduplication
 * absorbs a resend of the same record; its SHA-256 hex when SQS would refuse it (longer than 128 characters, or
 * holding white space or a character beyond ASCII punctuation).
 */
export function deduplicationId(key: string): string {
  if (key.length <= DEDUP_MAX && DEDUP_CHARS.test(key)) return key;
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** The message attribute that carries the stored key, as RabbitMQ's header and the HTTP sink's header do. */
export const KEY_ATTRIBUTE = "Idempotency-Key";
/** SQS's limit on message attributes per message. */
export const MAX_ATTRIBUTES = 10;

export interface OutgoingSend {
  MessageBody: string;
  MessageAttributes: Record<string, SendAttribute>;
  MessageGroupId?: string;
  MessageDeduplicationId?: string;
}

/** The SendMessage input (less the QueueUrl) for one record, or why it cannot be sent. */
export function outgoingSend(
  key: string,
  body: Buffer,
  origin: Pick<Origin, "headers" | "properties">,
  fifo: boolean,
): { ok: true; send: OutgoingSend } | { ok: false; reason: string } {
  const encoded = encodeAttributes(origin.headers);
  if (!encoded.ok) return { ok: false, reason: `header "${encoded.name}" is not a message attribute Redrive recorded` };
  const attributes = { ...encoded.attributes };
  delete attributes[KEY_ATTRIBUTE];
  attributes[KEY_ATTRIBUTE] = { DataType: "String", StringValue: key };
  if (Object.keys(attributes).length > MAX_ATTRIBUTES) {
    return {
      ok: false,
      reason: `the message already has ${MAX_ATTRIBUTES} attributes: SQS takes no more, so ${KEY_ATTRIBUTE} cannot be added`,
    };
  }
  const send: OutgoingSend = { MessageBody: body.toString("utf8"), MessageAttributes: attributes };
  if (fifo) {
    const group = origin.properties.MessageGroupId;
    if (typeof group !== "string" || group === "")
      return { ok: false, reason: "the source queue is FIFO but the message has no MessageGroupId" };
    send.MessageGroupId = group;
    send.MessageDeduplicationId = deduplicationId(key);
  }
  return { ok: true, send };
}
