import { z } from "zod";
import type { SinkConfigPlug } from "../sink-plug";

/** Back where each record came from: its source's broker, its original exchange, subject or stream. Client-safe. */
export const OriginSinkSchema = z.strictObject({ type: z.literal("origin") });

export const originConfigPlug: SinkConfigPlug<"origin", typeof OriginSinkSchema, { type: "origin" }> = {
  type: "origin",
  label: "Back to origin",
  help: "Back to origin: each record is published to the exchange, subject, stream, topic or queue it came from, through its source (a record not pulled from a broker source has nowhere to go back to: a filter leaves it out, a list of ids naming one is refused).",
  cliHelp: "origin (each record back to its own broker destination)",
  schema: OriginSinkSchema,
  fromFlags: () => ({ type: "origin" }),
  describe: {
    cli: () => "back to origin",
    short: () => "back to origin",
    detail: () => "back to origin: each record to the exchange, subject, stream, topic or queue it came from (listed above)",
  },
  replayedTo: "its origin",
  spatialOnly: false,
  needsOrigin: true,
  settledBy: "origin sink",
};

/** Where a batch back to origin publishes: one broker source's destination (lib/sources/destinations.ts), with its records. */
export interface OriginDestination {
  source: string;
  /** `exchange/routingKey` (RabbitMQ), subject (NATS), stream (Redis), topic (Kafka), queue URL (SQS) */
  destination: string;
  count: number;
  /** within the source's `options.destinations` (or it sets none); a batch back to origin refuses the others */
  allowed: boolean;
}
