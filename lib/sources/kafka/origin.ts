import type { HeaderValue, Headers, Origin } from "../connector";
import { dlqContext, headersToJson, headerValue, type DlqContext, type RawHeader } from "./dlq-headers";

// From one record of the dead-letter topic to the Origin Redrive stores. Pure.

/** A consumed record as the connector hands it over: bytes as read, the offset as the client gives it (decimal). */
export interface DlqRecord {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  /** the record's timestamp in milliseconds (decimal), as the client gives it */
  timestamp: string | null;
  headers: readonly RawHeader[];
}

export interface Translated {
  body: Buffer;
  origin: Origin;
  problem?: string;
}

/** Where a record sits: topic, partition and offset (also how the original record is named, as Kafka's tools do). */
export function positionOf(topic: string, partition: number, offset: string): string {
  return `${topic}:${partition}:${offset}`;
}

/**
 * A dead-letter record's position, stable across re-reads: topic, partition, offset and the record's own
 * timestamp (`@<ISO time>`). A topic deleted and created again under its name starts its offsets at 0; Kafka's
 * topic id would tell the two apart, but kafkajs (Metadata up to v6) never reads it, so the timestamp the record
 * was written with does: records of the new topic carry times after it was created.
 */
export function recordPositionOf(record: Pick<DlqRecord, "topic" | "partition" | "offset" | "timestamp">): string {
  const at = isoFromMillis(record.timestamp);
  return `${positionOf(record.topic, record.partition, record.offset)}${at === null ? "" : `@${at}`}`;
}

function isoFromMillis(ms: string | null): string | null {
  if (ms === null || !/^-?\d{1,16}$/.test(ms)) return null;
  const d = new Date(Number(ms));
  return Number.isNaN(d.getTime()) || Number(ms) < 0 ? null : d.toISOString();
}

/** "Class: message", either alone, or null: the record's failure reason when its body gives none. */
export function failureText(ctx: Pick<DlqContext, "exceptionClass" | "exceptionMessage">): string | null {
  const parts = [ctx.exceptionClass, ctx.exceptionMessage].filter((p): p is string => p !== null && p !== "");
  return parts.length ? parts.join(": ") : null;
}

function contextProperties(ctx: DlqContext): Headers {
  const props: Record<string, HeaderValue> = {};
  const keep: (keyof DlqContext)[] = [
    "convention",
    "timestampType",
    "consumerGroup",
    "exceptionClass",
    "causeClass",
    "exceptionMessage",
    "connector",
    "taskId",
    "stage",
    "className",
  ];
  for (const k of keep) {
    const v = ctx[k];
    if (typeof v === "string") props[k] = v;
  }
  if (ctx.problems.length) props.problems = [...ctx.problems];
  return props;
}

export function toPulled(record: DlqRecord): Translated {
  const ctx = dlqContext(record.headers);
  const position = recordPositionOf(record);
  const origin: Origin = {
    sourceType: "kafka",
    destination: { type: "kafka", topic: ctx.topic ?? "", partition: ctx.partition, offset: ctx.offset, dlqTopic: record.topic },
    deathReason: failureText(ctx),
    deliveryCount: null,
    messageId:
      ctx.topic !== null && ctx.partition !== null && ctx.offset !== null ? positionOf(ctx.topic, ctx.partition, ctx.offset) : null,
    position,
    publishedAt: ctx.timestamp,
    // The dead-letter record's own timestamp: when the recoverer or Connect wrote it.
    diedAt: isoFromMillis(record.timestamp),
    headers: headersToJson(record.headers),
    properties: {
      // The key travels back with the record, so the original topic's partitioner keeps its per-key order.
      key: record.key === null ? null : headerValue(record.key),
      dlq: { topic: record.topic, partition: record.partition, offset: record.offset },
      ...contextProperties(ctx),
    },
  };
  if (record.value === null) {
    const where = positionOf(record.topic, record.partition, record.offset);
    return { body: Buffer.alloc(0), origin, problem: `record ${where} has no value (a tombstone)` };
  }
  return { body: record.value, origin };
}
