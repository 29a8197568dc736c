import { describe, expect, it } from "vitest";
import type { Origin, OutgoingMessage } from "../connector";
import { planPublish } from "./outgoing";

function origin(over: Partial<Origin> = {}): Origin {
  return {
    sourceType: "rabbitmq",
    destination: { type: "rabbitmq", exchange: "x.work", routingKeys: ["orders.eu"], queue: "q.work" },
    deathReason: "rejected",
    deliveryCount: 1,
    messageId: "m-1",
    position: "q.dlq/m-1",
    publishedAt: "2023-11-14T22:13:20.000Z",
    diedAt: "2026-12-01T15:05:53.000Z",
    headers: {
      tenant: "acme",
      bin: { base64: "AQL/" },
      CC: ["orders.us"],
      "x-death": [{ count: 1, reason: "rejected" }],
      "x-first-death-queue": "q.work",
      "X-Custom-Upper": "broker-owned too",
      "idempotency-key": "stale",
    },
    properties: {
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
      expiration: "60000",
    },
    ...over,
  };
}

const message = (over: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  key: "key-1",
  body: Buffer.from("{}"),
  origin: origin(),
  ...over,
});

describe("planPublish", () => {
  it("publishes to the first death's exchange and routing key, mandatory, with the key as message_id", () => {
    const r = planPublish(message());
    if (!r.ok) throw new Error(r.problem);
    expect(r.plan.exchange).toBe("x.work");
    expect(r.plan.routingKey).toBe("orders.eu");
    expect(r.plan.content.toString()).toBe("{}");
    expect(r.plan.options).toMatchObject({ mandatory: true, messageId: "key-1" });
    expect(r.plan.options.CC).toBeUndefined();
  });

  it("drops x-* (any case) and CC/BCC headers, restores bytes, and sets Idempotency-Key", () => {
    const r = planPublish(message());
    if (!r.ok) throw new Error(r.problem);
    expect(r.plan.options.headers).toEqual({ tenant: "acme", bin: Buffer.from([1, 2, 255]), "Idempotency-Key": "key-1" });
  });

  it("keeps the properties but user_id, expiration and the old message_id; the timestamp back in seconds", () => {
    const r = planPublish(message());
    if (!r.ok) throw new Error(r.problem);
    const { headers: _h, mandatory: _m, ...props } = r.plan.options;
    expect(props).toEqual({
      contentType: "application/json",
      contentEncoding: "utf-8",
      correlationId: "corr-1",
      replyTo: "reply.q",
      type: "order.created",
      appId: "shop",
      priority: 3,
      deliveryMode: 2,
      timestamp: 1700000000,
      messageId: "key-1",
    });
  });

  it("sends the other routing keys as CC, so each queue the original reached gets one copy", () => {
    const o = origin({ destination: { type: "rabbitmq", exchange: "x.work", routingKeys: ["a", "b", "c"], queue: "q.work" } });
    const r = planPublish(message({ origin: o }));
    if (!r.ok) throw new Error(r.problem);
    expect(r.plan.routingKey).toBe("a");
    expect(r.plan.options.CC).toEqual(["b", "c"]);
  });

  it("refuses what cannot be published: no routing key, another broker's origin, a key too long for message_id", () => {
    const noKey = planPublish(
      message({ origin: origin({ destination: { type: "rabbitmq", exchange: "", routingKeys: [], queue: null } }) }),
    );
    expect(noKey).toEqual({ ok: false, problem: expect.stringContaining("no routing key") });
    const nats = planPublish(message({ origin: origin({ destination: { type: "nats", subject: "s", stream: "S" } }) }));
    expect(nats).toEqual({ ok: false, problem: expect.stringContaining("nats") });
    expect(planPublish(message({ key: "é".repeat(128) })).ok).toBe(false);
    expect(planPublish(message({ key: "k".repeat(255) })).ok).toBe(true);
    expect(planPublish(message({ key: "" })).ok).toBe(false);
  });

  it("skips properties of the wrong shape instead of failing the publish", () => {
    const o = origin({ properties: { priority: 300, delivery_mode: 3, timestamp: "yesterday", content_type: 5 } });
    const r = planPublish(message({ origin: o }));
    if (!r.ok) throw new Error(r.problem);
    expect(r.plan.options).not.toHaveProperty("priority");
    expect(r.plan.options).not.toHaveProperty("deliveryMode");
    expect(r.plan.options).not.toHaveProperty("timestamp");
    expect(r.plan.options).not.toHaveProperty("contentType");
  });
});
