import type { SourceConfigPlug } from "../source-plug";
import { duration, num, text } from "../summary-words";
import { destinationParts, destinationTexts, NatsDestinationSchema, type NatsDestination } from "./destination";
import { natsOptionsSchema, parseNatsUrl } from "./options";

export const natsConfigPlug: SourceConfigPlug<"nats", typeof natsOptionsSchema, NatsDestination> = {
  type: "nats",
  label: "NATS JetStream",
  location: "a NATS JetStream stream",
  urlPlaceholder: "nats://host:4222",
  options: natsOptionsSchema,
  urlRule: parseNatsUrl,
  destination: NatsDestinationSchema,
  destinationTexts,
  destinationParts,
  summary: (o) => {
    const ackWait = num(o.ackWaitMs);
    return [
      `stream ${text(o.stream) ?? "?"}`,
      text(o.consumer) ? `consumer ${text(o.consumer)}` : "every consumer",
      ...(ackWait === null ? [] : [`ack wait ${duration(ackWait)}`]),
    ];
  },
  form: {
    rows: [
      {
        columns: 3,
        fields: [
          {
            name: "stream",
            cli: { arg: "<stream>", help: "the stream whose consumers dead-letter messages" },
            label: "Stream",
            hint: "Whose consumers' dead letters to pull.",
            value: "required",
          },
          {
            name: "consumer",
            cli: { arg: "<consumer>", help: "one consumer of the stream (default every one)" },
            label: "Consumer",
            hint: "Blank: every consumer of the stream.",
            value: "optional",
          },
          {
            name: "ackWaitMs",
            cli: { arg: "<ms>", help: "how long a taken advisory stays invisible before it is handed out again" },
            label: "Ack wait (ms)",
            value: "number",
            min: 100,
            initial: "30000",
          },
        ],
      },
    ],
  },
};
