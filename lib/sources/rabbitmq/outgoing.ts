import type { Options } from "amqplib";
import type { HeaderValue, OutgoingMessage } from "../connector";
import { isoToAmqpSeconds, toAmqpValue } from "./header-values";

// How a stored dead letter goes back to where it was going: to the exchange it was first published to, with
// the routing keys it was published with, its own properties, and its headers minus the broker's. Pure.

export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** AMQP short strings (message_id among them) hold at most 255 bytes. */
const SHORTSTR_BYTES = 255;

export interface PublishPlan {
  exchange: string;
  routingKey: string;
  content: Buffer;
  options: Options.Publish & { headers: Record<string, unknown>; messageId: string };
}

export type PlanResult = { ok: true; plan: PublishPlan } | { ok: false; problem: string };

export function planPublish(message: OutgoingMessage): PlanResult {
  const { destination } = message.origin;
  if (destination.type !== "rabbitmq") return { ok: false, problem: `the message came from a ${destination.type} source, not RabbitMQ` };
  const [routingKey, ...cc] = destination.routingKeys;
  if (routingKey === undefined) {
    return { ok: false, problem: "the dead letter records no routing key (no x-death header), so where it was going is unknown" };
  }
  if (message.key === "" || Buffer.byteLength(message.key, "utf8") > SHORTSTR_BYTES) {
    return { ok: false, problem: `the idempotency key must be 1 to ${SHORTSTR_BYTES} bytes to travel as the AMQP message_id` };
  }
  return {
    ok: true,
    plan: {
      exchange: destination.exchange,
      routingKey,
      content: message.body,
      options: {
        ...propertiesBack(message.origin.properties),
        headers: headersBack(message.origin.headers, message.key),
        messageId: message.key,
        mandatory: true,
        // The dead letter's other routing keys came from CC: sent the same way, every queue the original
        // reached gets one copy again (publishing once per key would give a queue bound to two keys two).
        ...(cc.length > 0 ? { CC: cc } : {}),
      },
    },
  };
}

/**
 * Every header except the broker's: `x-*` (x-death, x-first-death-*, a quorum queue's x-delivery-count — the
 * broker owns these from 3.13 on, and old ones would make the next death look like a repeat) and CC/BCC,
 * which RabbitMQ reads as routing instructions; the routing keys are sent again through `CC` instead.
 */
export function headersBack(headers: Record<string, HeaderValue>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower.startsWith("x-") || name === "CC" || name === "BCC" || lower === IDEMPOTENCY_HEADER.toLowerCase()) continue;
    out[name] = toAmqpValue(value);
  }
  out[IDEMPOTENCY_HEADER] = key;
  return out;
}

/**
 * The recorded properties in amqplib's names. Left out: message_id (the idempotency key takes its place),
 * user_id (RabbitMQ refuses a user_id other than the publishing connection's user, closing the channel with
 * 406) and expiration (RabbitMQ removed it when the message died; putting it back could expire the replay).
 */
export function propertiesBack(props: Record<string, HeaderValue>): Options.Publish {
  const out: Options.Publish = {};
  for (const [wire, name] of TEXT_PROPERTIES) {
    const v = props[wire];
    if (typeof v === "string" && Buffer.byteLength(v, "utf8") <= SHORTSTR_BYTES) out[name] = v;
  }
  const { priority, delivery_mode: deliveryMode, timestamp } = props;
  if (typeof priority === "number" && Number.isInteger(priority) && priority >= 0 && priority <= 255) out.priority = priority;
  if (deliveryMode === 1 || deliveryMode === 2) out.deliveryMode = deliveryMode;
  const seconds = typeof timestamp === "string" ? isoToAmqpSeconds(timestamp) : typeof timestamp === "number" ? timestamp : null;
  if (seconds !== null && Number.isInteger(seconds) && seconds >= 0) out.timestamp = seconds;
  return out;
}

const TEXT_PROPERTIES = [
  ["content_type", "contentType"],
  ["content_encoding", "contentEncoding"],
  ["correlation_id", "correlationId"],
  ["reply_to", "replyTo"],
  ["type", "type"],
  ["app_id", "appId"],
] as const satisfies readonly (readonly [string, keyof Options.Publish])[];
