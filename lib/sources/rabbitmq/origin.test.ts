import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type AmqpDeadLetter, positionOf, toOrigin } from "./origin";

// A dead letter as amqplib 2.3 decoded it from RabbitMQ 3.10.8: published to topic exchange x.work with key
// orders.eu, rejected (requeue=false) by the consumer of q.work, routed by its DLX into q.dlq.
function rejected(): AmqpDeadLetter {
  return {
    content: Buffer.from('{"id":1}'),
    properties: {
      contentType: "application/json",
      contentEncoding: "utf-8",
      headers: {
        big: 1099511627776,
        bin: Buffer.from([1, 2, 255]),
        f: 1.5,
        n: 42,
        nested: { a: [1, "b"] },
        ok: true,
        tenant: "acme",
        ts: { "!": "timestamp", value: 1700000000 },
        "x-death": [
          {
            count: 1,
            reason: "rejected",
            queue: "q.work",
            time: { "!": "timestamp", value: 1796137553 },
            exchange: "x.work",
            "routing-keys": ["orders.eu"],
            "original-expiration": "60000",
          },
        ],
        "x-first-death-exchange": "x.work",
        "x-first-death-queue": "q.work",
        "x-first-death-reason": "rejected",
      },
      deliveryMode: 2,
      priority: 3,
      correlationId: "corr-1",
      replyTo: "reply.q",
      messageId: "m-1",
      timestamp: 1700000000,
      type: "order.created",
      userId: "guest",
      appId: "shop",
      expiration: undefined,
    },
  };
}

describe("toOrigin", () => {
  it("reads where the message was going and why it died from the x-first-death headers and x-death", () => {
    const origin = toOrigin("q.dlq", rejected());
    expect(origin).toMatchObject({
      sourceType: "rabbitmq",
      destination: { type: "rabbitmq", exchange: "x.work", routingKeys: ["orders.eu"], queue: "q.work" },
      deathReason: "rejected",
      deliveryCount: 1,
      messageId: "m-1",
      position: "q.dlq/m-1@2026-12-01T15:05:53.000Z#1",
      publishedAt: "2023-11-14T22:13:20.000Z",
      diedAt: "2026-12-01T15:05:53.000Z",
    });
  });

  it("keeps every header, JSON-safe: bytes as base64, timestamps as ISO strings, x-death included", () => {
    const { headers } = toOrigin("q.dlq", rejected());
    expect(headers).toEqual({
      big: 1099511627776,
      bin: { base64: "AQL/" },
      f: 1.5,
      n: 42,
      nested: { a: [1, "b"] },
      ok: true,
      tenant: "acme",
      ts: "2023-11-14T22:13:20.000Z",
      "x-death": [
        {
          count: 1,
          reason: "rejected",
          queue: "q.work",
          time: "2026-12-01T15:05:53.000Z",
          exchange: "x.work",
          "routing-keys": ["orders.eu"],
          "original-expiration": "60000",
        },
      ],
      "x-first-death-exchange": "x.work",
      "x-first-death-queue": "q.work",
      "x-first-death-reason": "rejected",
    });
    expect(JSON.parse(JSON.stringify(headers))).toEqual(headers);
  });

  it("records the properties present under AMQP's names, the timestamp as ISO 8601", () => {
    expect(toOrigin("q.dlq", rejected()).properties).toEqual({
      content_type: "application/json",
      content_encoding: "utf-8",
      correlation_id: "corr-1",
      reply_to: "reply.q",
      timestamp: "2023-11-14T22:13:20.000Z",
      type: "order.created",
      user_id: "guest",
      app_id: "shop",
      priority: 3,
      delivery_mode: 2,
      message_id: "m-1",
    });
  });

  it("takes routing keys and count from the first death's entry when the message died more than once", () => {
    const msg = rejected();
    msg.properties.headers = {
      // A retry loop: rejected from q.work into q.retry, expired back, finally past q.work's delivery limit.
      "x-death": [
        {
          count: 1,
          reason: "delivery_limit",
          queue: "q.work",
          time: { "!": "timestamp", value: 300 },
          exchange: "x.retry",
          "routing-keys": ["retry.key"],
        },
        {
          count: 2,
          reason: "expired",
          queue: "q.retry",
          time: { "!": "timestamp", value: 200 },
          exchange: "x.dlx",
          "routing-keys": ["q.work"],
        },
        {
          count: 2,
          reason: "rejected",
          queue: "q.work",
          time: { "!": "timestamp", value: 100 },
          exchange: "x.work",
          "routing-keys": ["orders.eu", "orders.us"],
        },
      ],
      "x-first-death-exchange": "x.work",
      "x-first-death-queue": "q.work",
      "x-first-death-reason": "rejected",
    };
    const origin = toOrigin("q.dlq", msg);
    expect(origin.destination).toEqual({ type: "rabbitmq", exchange: "x.work", routingKeys: ["orders.eu", "orders.us"], queue: "q.work" });
    expect(origin.deathReason).toBe("rejected");
    expect(origin.deliveryCount).toBe(2);
    expect(origin.diedAt).toBe("1970-01-01T00:05:00.000Z");
  });

  it("does not take a quorum DLQ's own x-delivery-count for the delivery count, nor let it move the position", () => {
    const first = rejected();
    const again = rejected();
    again.properties.headers = { ...again.properties.headers, "x-delivery-count": 3 };
    expect(toOrigin("q.dlq", again).deliveryCount).toBe(1);
    expect(toOrigin("q.dlq", again).position).toBe(toOrigin("q.dlq", first).position);
  });

  it("falls back to a hash of the body for the position when there is no message_id", () => {
    const msg = rejected();
    msg.properties.messageId = undefined;
    const hex = createHash("sha256").update('{"id":1}').digest("hex");
    const origin = toOrigin("q.dlq", msg);
    expect(origin.messageId).toBeNull();
    expect(origin.position).toBe(`q.dlq/sha256:${hex}@2026-12-01T15:05:53.000Z#1`);
    expect(origin.properties).not.toHaveProperty("message_id");
    expect(positionOf("q.dlq", "", Buffer.from("x"))).toBe("q.dlq/"); // positionOf trusts its caller; toOrigin passes null for ""
    msg.properties.messageId = "";
    expect(toOrigin("q.dlq", msg).position).toBe(`q.dlq/sha256:${hex}@2026-12-01T15:05:53.000Z#1`);
  });

  it("names each death of one message_id apart: a later death, or the same one counted again", () => {
    const first = toOrigin("q.dlq", rejected());
    const replayed = rejected();
    const deaths = replayed.properties.headers?.["x-death"] as Record<string, unknown>[];
    deaths[0] = { ...deaths[0], time: { "!": "timestamp", value: 1796137600 } };
    expect(toOrigin("q.dlq", replayed).position).toBe("q.dlq/m-1@2026-12-01T15:06:40.000Z#1");
    const again = rejected();
    (again.properties.headers?.["x-death"] as Record<string, unknown>[])[0]!.count = 2;
    expect(new Set([first.position, toOrigin("q.dlq", replayed).position, toOrigin("q.dlq", again).position]).size).toBe(3);
    expect(positionOf("q.dlq", "m-1", Buffer.alloc(0), null)).toBe("q.dlq/m-1");
  });

  it("describes a message that was never dead-lettered (no x-death) without inventing a destination", () => {
    const origin = toOrigin("q.dlq", { content: Buffer.alloc(0), properties: { headers: { note: "put here by hand" } } });
    expect(origin).toMatchObject({
      destination: { type: "rabbitmq", exchange: "", routingKeys: [], queue: null },
      deathReason: null,
      deliveryCount: null,
      messageId: null,
      publishedAt: null,
      diedAt: null,
      headers: { note: "put here by hand" },
      properties: {},
    });
  });

  it("keeps the default exchange ('') as the destination of a message sent straight to a queue", () => {
    const msg = rejected();
    msg.properties.headers = {
      "x-death": [
        { count: 1, reason: "expired", queue: "q.work", time: { "!": "timestamp", value: 1 }, exchange: "", "routing-keys": ["q.work"] },
      ],
      "x-first-death-exchange": "",
      "x-first-death-queue": "q.work",
      "x-first-death-reason": "expired",
    };
    expect(toOrigin("q.dlq", msg).destination).toEqual({ type: "rabbitmq", exchange: "", routingKeys: ["q.work"], queue: "q.work" });
  });

  it("leaves publishedAt null for a timestamp that is no date in seconds (milliseconds sent by mistake), keeping the number", () => {
    const msg = rejected();
    msg.properties.timestamp = 1700000000000 * 1000;
    const origin = toOrigin("q.dlq", msg);
    expect(origin.publishedAt).toBeNull();
    expect(origin.properties.timestamp).toBe(1700000000000 * 1000);
  });
});
