import type { SourceConfigPlug } from "../source-plug";
import { text } from "../summary-words";
import { destinationParts, destinationTexts, RabbitmqDestinationSchema, type RabbitmqDestination } from "./destination";
import { parseRabbitmqUrl, rabbitmqOptionsSchema } from "./options";

export const rabbitmqConfigPlug: SourceConfigPlug<"rabbitmq", typeof rabbitmqOptionsSchema, RabbitmqDestination> = {
  type: "rabbitmq",
  label: "RabbitMQ",
  location: "a RabbitMQ queue",
  urlPlaceholder: "amqp://user:password@host:5672/vhost",
  options: rabbitmqOptionsSchema,
  urlRule: parseRabbitmqUrl,
  destination: RabbitmqDestinationSchema,
  destinationTexts,
  destinationParts,
  summary: (o) => [`queue ${text(o.queue) ?? "?"}`],
  form: {
    rows: [
      {
        columns: 1,
        fields: [
          {
            name: "queue",
            cli: { arg: "<queue>", help: "the dead-letter queue to drain" },
            label: "Dead-letter queue",
            hint: "The queue dead letters are routed to.",
            value: "verbatim",
          },
        ],
      },
    ],
  },
};
