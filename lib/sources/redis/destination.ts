import { z } from "zod";
import type { DestinationPart } from "../source-plug";

/** Where a Redis Streams entry goes back: the stream, with its body in `field`. */
export const RedisDestinationSchema = z.object({ type: z.literal("redis"), stream: z.string(), field: z.string() });
export type RedisDestination = z.output<typeof RedisDestinationSchema>;

/** Where a replay to origin adds this dead letter, as `options.destinations` patterns see it: the stream's key. */
export function destinationTexts(d: RedisDestination): string[] {
  return [d.stream];
}

export function destinationParts(d: RedisDestination): DestinationPart[] {
  return [{ term: "stream", value: d.stream }, ...(d.field !== "body" ? [{ term: "body field", value: d.field, minor: true }] : [])];
}
