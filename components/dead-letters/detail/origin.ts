import { z } from "zod";
import type { JsonValue } from "@/lib/json/value";

// A pulled record's origin (DeadLetterDetail.origin: lib/sources/connector.ts's Origin plus the source's name),
// read for the record page: the API serves it as plain JSON, so it is checked here rather than trusted. Pure.

const text = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

const DestinationSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("rabbitmq"), exchange: z.string(), routingKeys: z.array(z.string()), queue: text }),
  z.object({ type: z.literal("nats"), subject: z.string(), stream: z.string() }),
  z.object({ type: z.literal("redis"), stream: z.string(), field: z.string() }),
  z.object({
    type: z.literal("kafka"),
    topic: z.string(),
    partition: z
      .number()
      .nullish()
      .transform((v) => v ?? null),
    offset: text,
    dlqTopic: z.string(),
  }),
  z.object({ type: z.literal("sqs"), queueArn: text, queueUrl: text }),
]);
export type Destination = z.output<typeof DestinationSchema>;

const fields = z
  .record(z.string(), z.unknown())
  .nullish()
  .transform((v) => v ?? {});

const OriginSchema = z.object({
  source: z.string(),
  sourceType: z.string(),
  destination: DestinationSchema,
  deathReason: text,
  deliveryCount: z
    .number()
    .nullish()
    .transform((v) => v ?? null),
  messageId: text,
  position: text,
  publishedAt: text,
  diedAt: text,
  headers: fields,
  properties: fields,
  /** the headers' names in the broker's order (the stored object's keys are in jsonb's): lib/sources/header-order.ts */
  headerOrder: z.array(z.string()).optional(),
});
export type OriginView = z.output<typeof OriginSchema>;

/** The origin, or null when it is not one this page knows how to read (then it is shown as JSON). */
export function readOrigin(value: JsonValue): OriginView | null {
  const parsed = OriginSchema.safeParse(value);
  if (!parsed.success) return null;
  return { ...parsed.data, headers: inOrder(parsed.data.headers, parsed.data.headerOrder) };
}

/** The headers in the recorded order; names it does not hold follow as they come. */
function inOrder(headers: Record<string, unknown>, order: readonly string[] | undefined): Record<string, unknown> {
  if (!order) return headers;
  const names = [...new Set([...order.filter((n) => Object.hasOwn(headers, n)), ...Object.keys(headers)])];
  const out: Record<string, unknown> = {};
  for (const n of names) Object.defineProperty(out, n, { value: headers[n], enumerable: true, writable: true, configurable: true });
  return out;
}

export interface DestinationPart {
  term: string;
  value: string;
  /** context rather than the address itself */
  minor?: boolean;
}

/** Where the message was going, in the broker's own terms: exchange and routing keys, subject, stream. */
export function destinationParts(d: Destination): DestinationPart[] {
  switch (d.type) {
    case "rabbitmq":
      return [
        // The default exchange's name is the empty string; RabbitMQ's own UI calls it "(AMQP default)".
        { term: "exchange", value: d.exchange === "" ? "(AMQP default)" : d.exchange },
        { term: d.routingKeys.length === 1 ? "routing key" : "routing keys", value: d.routingKeys.join(", ") || "(none)" },
        ...(d.queue ? [{ term: "dead-lettered from queue", value: d.queue, minor: true }] : []),
      ];
    case "nats":
      return [
        { term: "subject", value: d.subject },
        { term: "stream", value: d.stream, minor: true },
      ];
    case "redis":
      return [{ term: "stream", value: d.stream }, ...(d.field !== "body" ? [{ term: "body field", value: d.field, minor: true }] : [])];
    case "kafka":
      return [
        // The headers may name no topic (neither Spring's nor Connect's context): the record cannot go back.
        { term: "topic", value: d.topic === "" ? "(not named by the headers)" : d.topic },
        ...(d.partition !== null ? [{ term: "partition", value: String(d.partition) }] : []),
        ...(d.offset !== null ? [{ term: "offset", value: d.offset, minor: true }] : []),
        { term: "dead-letter topic", value: d.dlqTopic, minor: true },
      ];
    case "sqs":
      // SQS's DeadLetterQueueSourceArn wins over the source's sourceQueueUrl, as the origin sink decides.
      if (d.queueArn) return [{ term: "source queue", value: d.queueArn }];
      if (d.queueUrl)
        return [
          { term: "source queue", value: d.queueUrl },
          { term: "named by", value: "the source's sourceQueueUrl", minor: true },
        ];
      return [{ term: "source queue", value: "not known (SQS did not name it and the source has no sourceQueueUrl)" }];
  }
}

/** A header's value as text: strings as they are, anything else (numbers, arrays, x-death tables) as JSON. */
export function headerText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}
