import { describe, expect, it } from "vitest";
import { SOURCE_TYPES } from "./source-schemas";
import { destinationTexts, originAllowed } from "./destinations";

// Every broker type's destination as text, through the one registry: a new type without a formatter fails here.
const EXAMPLES: Record<(typeof SOURCE_TYPES)[number], { destination: unknown; texts: string[] }> = {
  rabbitmq: {
    destination: { type: "rabbitmq", exchange: "orders", routingKeys: ["eu.de", "eu.fr"], queue: "work" },
    texts: ["orders/eu.de", "orders/eu.fr"],
  },
  nats: { destination: { type: "nats", subject: "orders.eu", stream: "ORDERS" }, texts: ["orders.eu"] },
  redis: { destination: { type: "redis", stream: "orders:eu", field: "body" }, texts: ["orders:eu"] },
  kafka: { destination: { type: "kafka", topic: "orders-eu", partition: 0, offset: "5", dlqTopic: "orders-eu.DLT" }, texts: ["orders-eu"] },
  sqs: {
    destination: { type: "sqs", queueArn: null, queueUrl: "https://sqs.eu-west-1.amazonaws.com/1234/orders" },
    texts: ["https://sqs.eu-west-1.amazonaws.com/1234/orders"],
  },
};

describe("destinationTexts", () => {
  it("formats each broker type's destination with its own formatter", () => {
    for (const type of SOURCE_TYPES) expect(destinationTexts(EXAMPLES[type].destination), type).toEqual(EXAMPLES[type].texts);
  });

  it("says the default exchange as the empty name, and an SQS queue named by ARN by its ARN", () => {
    expect(destinationTexts({ type: "rabbitmq", exchange: "", routingKeys: ["victim"], queue: null })).toEqual(["/victim"]);
    expect(destinationTexts({ type: "sqs", queueArn: "arn:aws:sqs:eu-west-1:1234:orders", queueUrl: null })).toEqual([
      "arn:aws:sqs:eu-west-1:1234:orders",
    ]);
  });

  it("gives an unknown, unreadable or empty destination as the empty text", () => {
    expect(destinationTexts(null)).toEqual([""]);
    expect(destinationTexts({ type: "mqtt", topic: "x" })).toEqual([""]);
    expect(destinationTexts({ type: "rabbitmq", exchange: "x", routingKeys: [], queue: null })).toEqual([""]);
  });
});

describe("originAllowed", () => {
  it("allows anything without options.destinations; with them, only what every pattern-matched destination covers", () => {
    const forged = { type: "rabbitmq", exchange: "", routingKeys: ["payments"], queue: null };
    expect(originAllowed({ queue: "dlq" }, forged)).toBe(true);
    expect(originAllowed({ destinations: ["orders/*"] }, forged)).toBe(false);
    expect(originAllowed({ destinations: ["orders/*"] }, EXAMPLES.rabbitmq.destination)).toBe(true);
    expect(originAllowed({ destinations: ["orders/eu.de"] }, EXAMPLES.rabbitmq.destination)).toBe(false);
    expect(originAllowed({ destinations: ["*"] }, null)).toBe(true);
  });
});
