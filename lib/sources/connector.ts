/**
 * The contract between Redrive and one broker's dead-letter location. Each broker type implements it in
 * lib/sources/<type>/; everything above it (the stored source, the pull loop, the origin sink) is shared.
 *
 * The pull loop calls `take`, stores the records in one transaction, and only after that commit calls
 * `ack` for the same messages: a crash between the two hands the messages out again, and the store
 * recognises them by `origin.position`.
 */
import "server-only";

import type { Destination, SourceType } from "./registry";

export type { Destination, SourceType };

/** JSON-safe header values: byte strings become `{ "base64": "…" }`, timestamps ISO 8601 strings. */
export type HeaderValue = string | number | boolean | null | HeaderValue[] | { [key: string]: HeaderValue };
export type Headers = Record<string, HeaderValue>;

export interface Origin {
  sourceType: SourceType;
  destination: Destination;
  /** The broker's own words: rejected|expired|maxlen|delivery_limit (RabbitMQ), max_deliveries|terminated (NATS), max_deliveries|dead_letter_stream (Redis), the exception's class and message (Kafka), max_receive_count (SQS). */
  deathReason: string | null;
  deliveryCount: number | null;
  /** The broker's id for the message: AMQP message_id, NATS Nats-Msg-Id (else the stream sequence), Redis entry id, Kafka's original topic:partition:offset, SQS MessageId. */
  messageId: string | null;
  /** Names one message instance within its source (a re-created stream or topic, or a later death, gets another), stable across re-deliveries of the same dead letter. */
  position: string;
  /** ISO 8601 UTC, when the broker says. */
  publishedAt: string | null;
  diedAt: string | null;
  /** Every header or field as received (RabbitMQ headers incl. x-death, NATS headers, the Redis entry's other fields). */
  headers: Headers;
  /** The message's other broker properties as received (AMQP content_type, correlation_id, timestamp, …); {} where none. */
  properties: Headers;
  /** The headers' names in the broker's order, recorded when stored (jsonb reorders object keys): header-order.ts. */
  headerOrder?: string[];
}

export interface PulledMessage {
  body: Buffer;
  origin: Origin;
  /** The adapter's own handle for `ack` (delivery tag, JsMsg, entry id); opaque to callers. */
  readonly receipt: unknown;
  /** Set when the broker reported a dead letter whose body is gone (trimmed, deleted): the record keeps why. */
  problem?: string;
}

export interface OutgoingMessage {
  /** The stored idempotency key (spatial) or event hash (AFC), verbatim. */
  key: string;
  body: Buffer;
  /** The origin recorded when the message was pulled; the adapter decides which of its headers travel back. */
  origin: Origin;
}

export type PublishResult = { outcome: "applied" } | { outcome: "deduped" } | { outcome: "failed"; error: string; retryable: boolean };

export interface SourceConnector {
  /** Creates what the source needs on the broker (idempotent): NATS's advisory stream and consumer, Redis's group. */
  provision(): Promise<void>;
  /** Removes what `provision` created (the source was deleted). */
  deprovision(): Promise<void>;
  /** Messages waiting in the dead-letter location, or null when the broker cannot say cheaply. */
  waiting(): Promise<number | null>;
  /** Up to `max` messages, unacknowledged, waiting at most `waitMs` for the first. */
  take(max: number, waitMs: number): Promise<PulledMessage[]>;
  /** Acknowledges (removes from the DLQ) messages returned by `take` on this connection. */
  ack(messages: readonly PulledMessage[]): Promise<void>;
  /** Publishes one message back to its own original destination, confirmed by the broker. */
  publish(message: OutgoingMessage): Promise<PublishResult>;
  close(): Promise<void>;
}

/** What every connector is built from: the decrypted URL and the type's validated options. */
export interface ConnectorConfig<Options> {
  /** The source's name; NATS names its advisory stream and durable consumer after it. */
  name: string;
  url: string;
  options: Options;
}
