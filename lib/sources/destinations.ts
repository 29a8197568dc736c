import type { Destination } from "./connector";
import { destinationTexts as kafkaDestination } from "./kafka/origin";
import { destinationTexts as natsDestination } from "./nats/origin";
import { destinationTexts as rabbitmqDestination } from "./rabbitmq/origin";
import { destinationTexts as redisDestination } from "./redis/origin";
import { destinationTexts as sqsDestination } from "./sqs/message";
import { destinationsAllowed } from "./destination-glob";

// Where a replay to origin sends a stored dead letter, as text: what a batch lists for the second supervisor and
// what a source's `options.destinations` patterns are matched against. One formatter per broker type, in its own
// folder, registered here; nothing else decides per type.

type Formatters = { [T in Destination["type"]]: (d: Extract<Destination, { type: T }>) => string[] };

const FORMATTERS: Formatters = {
  rabbitmq: rabbitmqDestination,
  nats: natsDestination,
  redis: redisDestination,
  kafka: kafkaDestination,
  sqs: sqsDestination,
};

function isDestination(value: unknown): value is Destination {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.hasOwn(FORMATTERS, (value as { type?: unknown }).type as string)
  );
}

/**
 * The destinations a stored origin's `destination` (jsonb, as the pull recorded it) publishes to: usually one;
 * RabbitMQ one per routing key. Unreadable or of no known type: [""] — no pattern but `*` allows it.
 */
export function destinationTexts(destination: unknown): string[] {
  if (!isDestination(destination)) return [""];
  const format = FORMATTERS[destination.type] as (d: Destination) => string[];
  try {
    const texts = format(destination);
    return texts.length > 0 ? texts : [""];
  } catch {
    return [""];
  }
}

/** The patterns of a source's stored options (`options.destinations`), or undefined when it sets none. */
export function destinationPatterns(options: unknown): string[] | undefined {
  if (typeof options !== "object" || options === null) return undefined;
  const list = (options as { destinations?: unknown }).destinations;
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : undefined;
}

/** Whether a source with `options` may publish a dead letter recorded with `destination` back to it. */
export function originAllowed(options: unknown, destination: unknown): boolean {
  return destinationsAllowed(destinationPatterns(options), destinationTexts(destination));
}
