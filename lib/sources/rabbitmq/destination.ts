import { z } from "zod";
import { nullableText } from "../destination-fields";
import type { DestinationPart } from "../source-plug";

/** Where a RabbitMQ message was going before it died: its exchange and routing keys, and the queue it died in. */
export const RabbitmqDestinationSchema = z.object({
  type: z.literal("rabbitmq"),
  exchange: z.string(),
  routingKeys: z.array(z.string()),
  queue: nullableText,
});
export type RabbitmqDestination = z.output<typeof RabbitmqDestinationSchema>;

/**
 * Where a replay to origin publishes this dead letter, as `options.destinations` patterns see it: one
 * `exchange/routingKey` per routing key it goes out with (the first as the routing key, the others as CC: each
 * reaches its own queues). The default exchange is the empty name ("/orders" goes to the queue "orders").
 */
export function destinationTexts(d: RabbitmqDestination): string[] {
  return d.routingKeys.map((key) => `${d.exchange}/${key}`);
}

export function destinationParts(d: RabbitmqDestination): DestinationPart[] {
  return [
    // The default exchange's name is the empty string; RabbitMQ's own UI calls it "(AMQP default)".
    { term: "exchange", value: d.exchange === "" ? "(AMQP default)" : d.exchange },
    { term: d.routingKeys.length === 1 ? "routing key" : "routing keys", value: d.routingKeys.join(", ") || "(none)" },
    ...(d.queue ? [{ term: "dead-lettered from queue", value: d.queue, minor: true }] : []),
  ];
}
