import type { SourceConfigPlug } from "../source-plug";
import { text } from "../summary-words";
import { destinationParts, destinationTexts, KafkaDestinationSchema, type KafkaDestination } from "./destination";
import { kafkaOptionsSchema, parseKafkaUrl } from "./options";

export const kafkaConfigPlug: SourceConfigPlug<"kafka", typeof kafkaOptionsSchema, KafkaDestination> = {
  type: "kafka",
  label: "Kafka",
  location: "a Kafka dead-letter topic",
  urlPlaceholder: "kafka://user:password@broker1:9092,broker2:9092",
  options: kafkaOptionsSchema,
  urlRule: parseKafkaUrl,
  destination: KafkaDestinationSchema,
  destinationTexts,
  destinationParts,
  summary: (o) => [`topic ${text(o.topic) ?? "?"}`, `group ${text(o.group) ?? "redrive"}`],
  form: {
    rows: [
      {
        columns: 2,
        fields: [
          {
            name: "topic",
            cli: { arg: "<topic>", help: "the dead-letter topic to drain" },
            label: "Dead-letter topic",
            hint: "Where Spring's recoverer or Kafka Connect writes the failed records.",
            value: "required",
          },
          {
            name: "group",
            cli: { arg: "<group>", help: "Redrive's consumer group (default redrive)" },
            label: "Redrive's consumer group",
            hint: "Its committed offsets say how far Redrive has stored.",
            value: "optional",
            initial: "redrive",
          },
        ],
      },
    ],
  },
};
