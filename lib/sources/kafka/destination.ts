import { z } from "zod";
import { nullableNumber, nullableText } from "../destination-fields";
import type { DestinationPart } from "../source-plug";

/** The original topic (empty when the headers name none), partition and offset; the dead-letter topic read. */
export const KafkaDestinationSchema = z.object({
  type: z.literal("kafka"),
  topic: z.string(),
  partition: nullableNumber,
  offset: nullableText,
  dlqTopic: z.string(),
});
export type KafkaDestination = z.output<typeof KafkaDestinationSchema>;

/** Where a replay to origin produces this dead letter, as `options.destinations` patterns see it: the original topic. */
export function destinationTexts(d: KafkaDestination): string[] {
  return [d.topic];
}

export function destinationParts(d: KafkaDestination): DestinationPart[] {
  return [
    // The headers may name no topic (neither Spring's nor Connect's context): the record cannot go back.
    { term: "topic", value: d.topic === "" ? "(not named by the headers)" : d.topic },
    ...(d.partition !== null ? [{ term: "partition", value: String(d.partition) }] : []),
    ...(d.offset !== null ? [{ term: "offset", value: d.offset, minor: true }] : []),
    { term: "dead-letter topic", value: d.dlqTopic, minor: true },
  ];
}
