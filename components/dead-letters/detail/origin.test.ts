import { describe, expect, it } from "vitest";
import { destinationParts, headerText, readOrigin } from "./origin";

const redis = {
  source: "parcels-dlq",
  sourceType: "redis",
  destination: { type: "redis", stream: "parcels", field: "body" },
  deathReason: "dead_letter_stream",
  deliveryCount: null,
  messageId: "1764600000000-0",
  position: "parcels:dlq:1764600000000-0",
  publishedAt: null,
  diedAt: "2025-12-01T14:40:00.000Z",
  headers: { error: "KeyError: 'geometry'", attempts: 3 },
  properties: {},
};

describe("readOrigin", () => {
  it("reads an origin as the API serves it", () => {
    expect(readOrigin(redis)).toMatchObject({
      source: "parcels-dlq",
      destination: { type: "redis", stream: "parcels" },
      deliveryCount: null,
    });
  });

  it("shows the headers in the broker's order, not the stored object's", () => {
    const stored = { ...redis, headers: { "x-tenant": "north", traceparent: "00-abc" }, headerOrder: ["traceparent", "x-tenant"] };
    expect(Object.keys(readOrigin(stored)?.headers ?? {})).toEqual(["traceparent", "x-tenant"]);
  });

  it("takes missing optional fields as empty, and refuses what it cannot read", () => {
    const { headers: _h, properties: _p, deathReason: _d, ...bare } = redis;
    expect(readOrigin(bare)).toMatchObject({ headers: {}, properties: {}, deathReason: null });
    expect(readOrigin({ ...redis, destination: { type: "mqtt", topic: "t" } })).toBeNull();
    expect(readOrigin({ ...redis, destination: { type: "kafka", topic: "t" } })).toBeNull();
    expect(readOrigin("redis")).toBeNull();
  });
});

describe("destinationParts", () => {
  it("writes each broker's destination in its own terms", () => {
    expect(destinationParts({ type: "rabbitmq", exchange: "orders", routingKeys: ["order.created"], queue: "orders.work" })).toEqual([
      { term: "exchange", value: "orders" },
      { term: "routing key", value: "order.created" },
      { term: "dead-lettered from queue", value: "orders.work", minor: true },
    ]);
    expect(destinationParts({ type: "rabbitmq", exchange: "", routingKeys: ["a", "b"], queue: null })).toEqual([
      { term: "exchange", value: "(AMQP default)" },
      { term: "routing keys", value: "a, b" },
    ]);
    expect(destinationParts({ type: "nats", subject: "orders.created", stream: "ORDERS" })[0]).toEqual({
      term: "subject",
      value: "orders.created",
    });
    expect(destinationParts({ type: "redis", stream: "parcels", field: "body" })).toEqual([{ term: "stream", value: "parcels" }]);
    expect(destinationParts({ type: "kafka", topic: "orders", partition: 3, offset: "42", dlqTopic: "orders-dlt" })).toEqual([
      { term: "topic", value: "orders" },
      { term: "partition", value: "3" },
      { term: "offset", value: "42", minor: true },
      { term: "dead-letter topic", value: "orders-dlt", minor: true },
    ]);
    expect(destinationParts({ type: "kafka", topic: "", partition: null, offset: null, dlqTopic: "d" })[0]).toEqual({
      term: "topic",
      value: "(not named by the headers)",
    });
  });
});

describe("destinationParts for SQS", () => {
  it("names the queue SQS gave, else the source's sourceQueueUrl, else says it is not known", () => {
    const arn = "arn:aws:sqs:eu-west-1:123456789012:parcels";
    expect(destinationParts({ type: "sqs", queueArn: arn, queueUrl: "http://h/1/other" })).toEqual([{ term: "source queue", value: arn }]);
    expect(destinationParts({ type: "sqs", queueArn: null, queueUrl: "http://h/1/parcels" })).toEqual([
      { term: "source queue", value: "http://h/1/parcels" },
      { term: "named by", value: "the source's sourceQueueUrl", minor: true },
    ]);
    expect(destinationParts({ type: "sqs", queueArn: null, queueUrl: null })[0]?.value).toMatch(/^not known/);
    expect(readOrigin({ ...redis, sourceType: "sqs", destination: { type: "sqs", queueArn: null, queueUrl: null } })?.destination).toEqual({
      type: "sqs",
      queueArn: null,
      queueUrl: null,
    });
  });
});

describe("headerText", () => {
  it("keeps strings and writes anything else as JSON", () => {
    expect(headerText("text")).toBe("text");
    expect(headerText(3)).toBe("3");
    expect(headerText([{ count: 1, reason: "rejected" }])).toBe('[{"count":1,"reason":"rejected"}]');
    expect(headerText({ base64: "AAE=" })).toBe('{"base64":"AAE="}');
    expect(headerText(null)).toBe("null");
  });
});
