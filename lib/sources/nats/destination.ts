import { z } from "zod";
import type { DestinationPart } from "../source-plug";

/** Where a NATS JetStream message was going: its subject, in its stream. */
export const NatsDestinationSchema = z.object({ type: z.literal("nats"), subject: z.string(), stream: z.string() });
export type NatsDestination = z.output<typeof NatsDestinationSchema>;

/** Where a replay to origin publishes this dead letter, as `options.destinations` patterns see it: the subject. */
export function destinationTexts(d: NatsDestination): string[] {
  return [d.subject];
}

export function destinationParts(d: NatsDestination): DestinationPart[] {
  return [
    { term: "subject", value: d.subject },
    { term: "stream", value: d.stream, minor: true },
  ];
}
