import { describe, expect, it } from "vitest";
import { CreateSourceBody, displayUrl } from "./source-schemas";

// An SQS source may be given as AWS tools name it: options.queueUrl and an access key beside it.

const QUEUE = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq";

describe("CreateSourceBody for sqs", () => {
  it("takes options.queueUrl as the source's URL", () => {
    const parsed = CreateSourceBody.parse({ name: "orders", type: "sqs", kind: "afc", options: { queueUrl: QUEUE, region: "eu-west-1" } });
    expect(parsed).toMatchObject({ url: QUEUE, options: { region: "eu-west-1" } });
    expect(parsed.options).not.toHaveProperty("queueUrl");
  });

  it("puts a stored access key in the URL's userinfo, so it is sealed and redacted with it", () => {
    const parsed = CreateSourceBody.parse({
      name: "orders",
      type: "sqs",
      kind: "afc",
      options: { queueUrl: QUEUE, accessKeyId: "AKIAEXAMPLE", secretAccessKey: "se/cr+et" },
    });
    expect(parsed.url).toBe("https://AKIAEXAMPLE:se%2Fcr%2Bet@sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq");
    expect(parsed.options).toEqual({ visibilityTimeoutSeconds: 60 });
    expect(displayUrl(parsed.url)).not.toContain("se%2Fcr");
  });

  it("refuses a queueUrl that contradicts url, and half a key, naming them", () => {
    const both = CreateSourceBody.safeParse({ name: "o", type: "sqs", kind: "afc", url: QUEUE, options: { queueUrl: `${QUEUE}-2` } });
    expect(both.success).toBe(false);
    expect(JSON.stringify(both.error?.issues)).toContain("queueUrl");
    const half = CreateSourceBody.safeParse({ name: "o", type: "sqs", kind: "afc", url: QUEUE, options: { accessKeyId: "AKIA" } });
    expect(half.success).toBe(false);
    expect(JSON.stringify(half.error?.issues)).toContain("accessKeyId");
  });
});

describe("options.destinations", () => {
  it("is taken by every source type, as patterns", () => {
    const bodies = [
      { type: "rabbitmq", url: "amqp://guest:guest@127.0.0.1:5672", options: { queue: "dlq" } },
      { type: "nats", url: "nats://127.0.0.1:4222", options: { stream: "ORDERS" } },
      { type: "redis", url: "redis://127.0.0.1:6379", options: { stream: "orders", group: "app" } },
      { type: "kafka", url: "kafka://127.0.0.1:9092", options: { topic: "orders.DLT" } },
      { type: "sqs", url: QUEUE, options: {} },
    ];
    for (const b of bodies) {
      const parsed = CreateSourceBody.safeParse({
        name: "s",
        kind: "spatial",
        ...b,
        options: { ...b.options, destinations: ["orders/*"] },
      });
      expect(parsed.success, `${b.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(parsed.data?.options).toMatchObject({ destinations: ["orders/*"] });
    }
  });

  it("refuses an empty list or pattern, naming the field", () => {
    for (const destinations of [[], [""], "orders/*"]) {
      const parsed = CreateSourceBody.safeParse({ name: "s", kind: "spatial", type: "sqs", url: QUEUE, options: { destinations } });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path.join(".")).toMatch(/^options\.destinations/);
    }
  });
});
