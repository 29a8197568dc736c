import { z } from "zod";
import { kafkaConfigPlug } from "./kafka/kafka-config";
import { natsConfigPlug } from "./nats/nats-config";
import { rabbitmqConfigPlug } from "./rabbitmq/rabbitmq-config";
import { redisConfigPlug } from "./redis/redis-config";
import { orList } from "../vocabulary/word-list";
import type { AnySourceConfigPlug } from "./source-plug";
import { sqsConfigPlug } from "./sqs/sqs-config";

// Every broker type, once: a folder under lib/sources/ and a line here (and one in registry.server.ts for its
// connector). The API's and the CLI's source schemas, the add form, the /sources cards, the record page's Origin
// panel and what `options.destinations` matches come from this list; nothing outside lib/sources decides per
// broker type. Client-safe.

export const SOURCES = [rabbitmqConfigPlug, natsConfigPlug, redisConfigPlug, kafkaConfigPlug, sqsConfigPlug] as const;

type Plug = (typeof SOURCES)[number];
export type SourceType = Plug["type"];
export const SOURCE_TYPES = SOURCES.map((p) => p.type) as readonly SourceType[] as readonly [SourceType, ...SourceType[]];

/** Where a message was going before it died: enough to publish it back there (each type's own shape). */
export type Destination = z.output<Plug["destination"]>;

/** A stored destination of any registered type, read leniently (the record page checks the origin it is served). */
export const DestinationSchema = z.discriminatedUnion(
  "type",
  SOURCES.map((p) => p.destination) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<Destination>;

/** What a source can be, in words: "a RabbitMQ queue, …, a Kafka dead-letter topic or an SQS dead-letter queue". */
export function sourceLocations(plugs: readonly AnySourceConfigPlug[] = SOURCES): string {
  return orList(plugs.map((p) => p.location));
}

export function sourcePlug<T extends SourceType>(type: T): Extract<Plug, { type: T }> {
  return SOURCES.find((p) => p.type === type) as Extract<Plug, { type: T }>;
}

/** The plug of a type read from stored or sent data, or undefined when no registered type has that name. */
export function findSourcePlug(type: unknown): AnySourceConfigPlug | undefined {
  return SOURCES.find((p) => p.type === type);
}

/** Why `url` cannot reach a broker of `type` (scheme, host, encoding), or null; never repeats a password. */
export function sourceUrlProblem(type: SourceType, url: string): string | null {
  const parsed = (sourcePlug(type) as AnySourceConfigPlug).urlRule(url);
  return parsed.ok ? null : parsed.message;
}
