import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutgoingMessage, PulledMessage } from "../../../lib/sources/connector";
import { Broker, Connectors, type Topology, body, props } from "./rabbitmq-broker";

// The RabbitMQ source publishing dead letters back to where they were going, read by a plain consumer of
// the original queue.

let broker: Broker;
const connectors = new Connectors();
const connect = connectors.connect;
const rejected = (t: Topology, count: number, options = props) => broker.rejected(t, count, options);

beforeAll(async () => {
  broker = await Broker.connect();
});

afterAll(async () => {
  await connectors.closeAll();
  await broker.cleanup();
});

describe("RabbitMQ source: publish back", () => {
  const outgoing = (m: PulledMessage, key: string): OutgoingMessage => ({ key, body: m.body, origin: m.origin });

  it("puts the message back on its exchange and routing key with its properties, its headers minus x-*, and Idempotency-Key", async () => {
    const t = await broker.topology();
    await rejected(t, 1);
    const c = await connect(t.dlq);
    const [m] = await c.take(1, 2000);
    if (!m) throw new Error("no dead letter");
    expect(await c.publish(outgoing(m, "idem-1"))).toEqual({ outcome: "applied" });
    const [back, ...extra] = await broker.readAll(t.work);
    expect(extra).toHaveLength(0);
    expect(back?.content.equals(body(0))).toBe(true);
    expect(back?.fields).toMatchObject({ exchange: t.exchange, routingKey: "orders.eu" });
    expect(back?.properties).toMatchObject({
      messageId: "idem-1",
      contentType: "application/octet-stream",
      correlationId: "corr-0",
      timestamp: 1_700_000_000,
      appId: "redrive-test",
      type: "order.created",
      priority: 1,
      deliveryMode: 2,
    });
    expect(back?.properties.headers).toEqual({ tenant: "acme", seq: 0, raw: Buffer.from([0, 0, 255]), "Idempotency-Key": "idem-1" });
    await c.ack([m]);
  });

  it("does not deduplicate: the same key published twice arrives twice, both with that key for the consumer to drop one", async () => {
    const t = await broker.topology();
    await rejected(t, 1);
    const c = await connect(t.dlq);
    const [m] = await c.take(1, 2000);
    if (!m) throw new Error("no dead letter");
    expect(await c.publish(outgoing(m, "same"))).toEqual({ outcome: "applied" });
    expect(await c.publish(outgoing(m, "same"))).toEqual({ outcome: "applied" });
    const copies = await broker.readAll(t.work);
    expect(copies.map((x) => [x.properties.messageId, x.properties.headers?.["Idempotency-Key"]])).toEqual([
      ["same", "same"],
      ["same", "same"],
    ]);
  });

  it("sends the other routing keys as CC, as the original was: each queue gets one copy", async () => {
    const t = await broker.topology();
    const other = `redrive.test.other.${t.suffix}`;
    await broker.queue(other, {});
    await broker.channel.bindQueue(other, t.exchange, "audit.*");
    await broker.channel.bindQueue(other, t.exchange, "orders.eu");
    await rejected(t, 1, (i) => ({ ...props(i), CC: ["audit.eu"] }));
    await broker.readAll(other, 100); // the original's copy
    const c = await connect(t.dlq);
    const [m] = await c.take(1, 2000);
    if (!m) throw new Error("no dead letter");
    expect(m.origin.destination).toMatchObject({ routingKeys: ["orders.eu", "audit.eu"] });
    expect(await c.publish(outgoing(m, "cc-1"))).toEqual({ outcome: "applied" });
    expect(await broker.readAll(t.work)).toHaveLength(1);
    const [copy, ...dup] = await broker.readAll(other);
    expect(dup).toHaveLength(0);
    // amqplib shows the CC it was routed by; the original CC header (stripped) is not sent twice.
    expect(copy?.properties.headers?.CC).toEqual(["audit.eu"]);
  });

  it("reports an unroutable message (basic.return) as a retryable failure, also among concurrent publishes", async () => {
    const t = await broker.topology();
    await rejected(t, 1);
    const c = await connect(t.dlq);
    const [m] = await c.take(1, 2000);
    if (!m) throw new Error("no dead letter");
    const nowhere = {
      ...m.origin,
      destination: { type: "rabbitmq" as const, exchange: t.exchange, routingKeys: ["nobody.listens"], queue: null },
    };
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        c.publish(i % 3 === 0 ? { key: `k-${i}`, body: m.body, origin: nowhere } : outgoing(m, `k-${i}`)),
      ),
    );
    results.forEach((r, i) => {
      if (i % 3 === 0) expect(r).toEqual({ outcome: "failed", retryable: true, error: expect.stringMatching(/unroutable.*312 NO_ROUTE/) });
      else expect(r).toEqual({ outcome: "applied" });
    });
    expect(await broker.readAll(t.work)).toHaveLength(66);
  });

  it("fails a publish to a missing exchange with the broker's words, and the next publish still works", async () => {
    const t = await broker.topology();
    await rejected(t, 1);
    const c = await connect(t.dlq);
    const [m] = await c.take(1, 2000);
    if (!m) throw new Error("no dead letter");
    const gone = {
      ...m.origin,
      destination: { type: "rabbitmq" as const, exchange: `missing.${t.suffix}`, routingKeys: ["k"], queue: null },
    };
    expect(await c.publish({ key: "x-1", body: m.body, origin: gone })).toEqual({
      outcome: "failed",
      retryable: false,
      error: expect.stringContaining(`NOT_FOUND - no exchange 'missing.${t.suffix}' in vhost '/'`),
    });
    expect(await c.publish(outgoing(m, "x-2"))).toEqual({ outcome: "applied" });

    // An exchange deleted after it was checked: RabbitMQ closes the publishing channel itself (404).
    const temp = `redrive.test.temp.${t.suffix}`;
    await broker.exchange(temp, "fanout");
    await broker.channel.bindQueue(t.work, temp, "");
    const viaTemp = { ...m.origin, destination: { type: "rabbitmq" as const, exchange: temp, routingKeys: ["any"], queue: null } };
    expect(await c.publish({ key: "x-3", body: m.body, origin: viaTemp })).toEqual({ outcome: "applied" });
    await broker.channel.deleteExchange(temp);
    expect(await c.publish({ key: "x-4", body: m.body, origin: viaTemp })).toEqual({
      outcome: "failed",
      retryable: true,
      error: expect.stringContaining(`NOT_FOUND - no exchange '${temp}' in vhost '/'`),
    });
    expect(await c.publish({ key: "x-5", body: m.body, origin: viaTemp })).toMatchObject({ outcome: "failed", retryable: false });
    expect(await c.publish(outgoing(m, "x-6"))).toEqual({ outcome: "applied" });
    const ids = (await broker.readAll(t.work)).map((x) => x.properties.messageId);
    expect(ids).toEqual(["x-2", "x-3", "x-6"]);
    // The reader's channel was not touched by the publisher's failures: the taken message is still held.
    await c.ack([m]);
    expect(await c.waiting()).toBe(0);
  });
});
