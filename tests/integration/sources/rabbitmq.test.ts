import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PulledMessage } from "../../../lib/sources/connector";
import { createRabbitmqConnector } from "../../../lib/sources/rabbitmq/connector";
import { RabbitmqSourceError } from "../../../lib/sources/rabbitmq/errors";
import { Broker, Connectors, RABBITMQ_URL, Relay, type Topology, body, props, sleep } from "./rabbitmq-broker";

// The RabbitMQ source's reading side against the real broker: dead letters made by RabbitMQ itself (reject
// with requeue=false through a DLX; a quorum queue's delivery limit), taken, acknowledged, or handed out
// again; and how it fails. Publishing back is in rabbitmq-publish.test.ts.

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

const positions = (ms: readonly PulledMessage[]) => ms.map((m) => m.origin.position).sort();

describe("RabbitMQ source: dead letters made by the broker", () => {
  it("returns a rejected message with where it was going, why it died, its headers, properties and exact body", async () => {
    const t = await broker.topology();
    const before = Date.now();
    await rejected(t, 3);
    const c = await connect(t.dlq);
    const taken = await c.take(10, 2000);
    expect(taken).toHaveLength(3);
    const m = taken.find((x) => x.origin.messageId === "m-1");
    expect(m?.body.equals(body(1))).toBe(true);
    expect(m?.origin).toMatchObject({
      sourceType: "rabbitmq",
      destination: { type: "rabbitmq", exchange: t.exchange, routingKeys: ["orders.eu"], queue: t.work },
      deathReason: "rejected",
      deliveryCount: 1,
      messageId: "m-1",
      position: `${t.dlq}/m-1@${m?.origin.diedAt}#1`,
      publishedAt: "2023-11-14T22:13:21.000Z",
      properties: {
        content_type: "application/octet-stream",
        correlation_id: "corr-1",
        timestamp: "2023-11-14T22:13:21.000Z",
        type: "order.created",
        app_id: "redrive-test",
        priority: 1,
        delivery_mode: 2,
        message_id: "m-1",
      },
    });
    const headers = m?.origin.headers ?? {};
    expect(headers).toMatchObject({
      tenant: "acme",
      seq: 1,
      raw: { base64: Buffer.from([0, 1, 255]).toString("base64") },
      "x-first-death-exchange": t.exchange,
      "x-first-death-queue": t.work,
      "x-first-death-reason": "rejected",
    });
    expect(headers["x-death"]).toEqual([
      { count: 1, reason: "rejected", queue: t.work, time: m?.origin.diedAt, exchange: t.exchange, "routing-keys": ["orders.eu"] },
    ]);
    const diedAt = Date.parse(m?.origin.diedAt ?? "");
    expect(diedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(diedAt).toBeLessThanOrEqual(Date.now());
    await c.ack(taken);
  });

  it("returns a message a quorum queue dead-lettered past its delivery limit", async () => {
    const t = await broker.topology();
    await broker.publish(t.exchange, "quorum.eu", [body(7)], () => props(7));
    await broker.requeueUntilDead(t.quorum, 1, t.dlq);
    const c = await connect(t.dlq);
    const [m, ...rest] = await c.take(10, 2000);
    expect(rest).toHaveLength(0);
    expect(m?.body.equals(body(7))).toBe(true);
    expect(m?.origin).toMatchObject({
      destination: { type: "rabbitmq", exchange: t.exchange, routingKeys: ["quorum.eu"], queue: t.quorum },
      deathReason: "delivery_limit",
      deliveryCount: 1,
      messageId: "m-7",
      position: `${t.dlq}/m-7@${m?.origin.diedAt}#1`,
    });
    await c.ack(m ? [m] : []);
  });

  it("positions a message without message_id by the SHA-256 of its body", async () => {
    const t = await broker.topology();
    await rejected(t, 1, (i) => ({ ...props(i), messageId: undefined }));
    const c = await connect(t.dlq);
    const [m] = await c.take(1, 2000);
    expect(m?.origin.messageId).toBeNull();
    expect(m?.origin.position).toMatch(new RegExp(`^${t.dlq.replace(/\./g, "\\.")}/sha256:[0-9a-f]{64}@\\d{4}-[\\d:.T-]+Z#1$`));
  });
});

describe.each([
  ["classic", (t: Topology) => t.dlq],
  ["quorum", (t: Topology) => t.quorumDlq],
])("RabbitMQ source: nothing is lost (%s DLQ)", (_kind, dlqOf) => {
  it("hands unacknowledged messages out again after close; acknowledged ones are gone; waiting() counts ready ones", async () => {
    const t = await broker.topology();
    const dlq = dlqOf(t);
    await rejected(t, 20);
    const first = await connect(dlq);
    expect(await first.waiting()).toBe(20);
    const held = await first.take(15, 2000);
    expect(held).toHaveLength(15);
    expect(await first.waiting()).toBe(5);
    // A second take on the same connection never repeats a message still held.
    const more = await first.take(15, 2000);
    expect(more).toHaveLength(5);
    expect(new Set(positions([...held, ...more])).size).toBe(20);
    await first.close();
    await first.close(); // idempotent

    // Closing hands the held messages back; a quorum queue applies that through its Raft log, so the
    // count a new connection reads converges rather than changing at once.
    const second = await connect(dlq);
    await expect.poll(() => second.waiting(), { timeout: 5000 }).toBe(20);
    const again = await second.take(100, 2000);
    expect(positions(again)).toEqual(positions([...held, ...more]));
    // Not a prefix of what was taken (one ack each), and one listed twice: acking a tag twice would make
    // RabbitMQ close the channel, handing the other held messages back.
    const acked = again.filter((_, i) => i % 2 === 1 && i < 16);
    await second.ack([...acked, ...acked.slice(0, 1)]);
    expect(await second.waiting()).toBe(0);
    const kept = again.filter((m) => !acked.includes(m));
    await second.ack(kept.slice(0, 2)); // the same channel is still usable
    await second.close();

    const third = await connect(dlq);
    await expect.poll(() => third.waiting(), { timeout: 5000 }).toBe(10);
    const rest = await third.take(100, 2000);
    expect(positions(rest)).toEqual(positions(kept.slice(2)));
    await third.ack(rest);
    expect(await third.waiting()).toBe(0);
    expect(await third.take(100, 200)).toEqual([]);
  });

  it("hands messages out again after the process holding them is killed", async () => {
    const t = await broker.topology();
    const dlq = dlqOf(t);
    await rejected(t, 6);
    const child = spawn(
      process.execPath,
      [
        "--conditions=react-server",
        "--import",
        "tsx",
        fileURLToPath(new URL("./rabbitmq-take-child.ts", import.meta.url)),
        RABBITMQ_URL,
        dlq,
        "4",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let childTook: string[] = [];
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once("line", resolve);
        child.once("exit", (code) => reject(new Error(`the child exited (${code}) before taking`)));
      });
      childTook = JSON.parse(line) as string[];
      expect(childTook).toHaveLength(4);
      expect(await broker.channel.checkQueue(dlq)).toMatchObject({ messageCount: 2 });
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    await broker.waitForCount(dlq, 6);
    const c = await connect(dlq);
    const all = await c.take(100, 2000);
    expect(positions(all)).toEqual(expect.arrayContaining(childTook));
    expect(all).toHaveLength(6);
  });
});

describe("RabbitMQ source: waiting, failures and shutdown", () => {
  it("returns [] after about waitMs when nothing is waiting", async () => {
    const t = await broker.topology();
    const c = await connect(t.dlq);
    const started = performance.now();
    expect(await c.take(100, 400)).toEqual([]);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(380);
    expect(elapsed).toBeLessThan(1500);
  });

  it("returns a message that arrives while take waits, without waiting out waitMs", async () => {
    const t = await broker.topology();
    const c = await connect(t.dlq);
    const started = performance.now();
    const pending = c.take(100, 5000);
    await sleep(200);
    await broker.publish(t.exchange, "orders.eu", [body(0)], props);
    await broker.rejectAll(t.work, 1);
    const got = await pending;
    expect(got).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("provision checks that the queue exists and never creates it", async () => {
    const t = await broker.topology();
    await (await connect(t.dlq)).provision();
    const missing = `redrive.test.missing.${t.suffix}`;
    const c = await connect(missing);
    await expect(c.provision()).rejects.toThrow(new RegExp(`queue '${missing}' does not exist.*never creates one`));
    await expect(c.waiting()).rejects.toMatchObject({ code: "not_found" });
    await expect(c.take(10, 100)).rejects.toMatchObject({ code: "not_found" });
    expect(await broker.exists(missing)).toBe(false);
    await c.deprovision();
  });

  it("rejects a bad URL, refused credentials and an unreachable broker with a clear message and no password", async () => {
    const attempt = (url: string) => createRabbitmqConnector({ name: "bad", url, options: { queue: "q" } });
    const secret = "s3cr3t-pw";
    await expect(attempt(`http://guest:${secret}@127.0.0.1:5672`)).rejects.toMatchObject({
      code: "invalid_config",
      message: expect.stringMatching(/must start with amqp:\/\/ or amqps:\/\//),
    });
    const refused = await attempt(`amqp://guest:${secret}@127.0.0.1:5672`).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RabbitmqSourceError);
    expect(refused).toMatchObject({ code: "refused", message: expect.stringMatching(/refused user 'guest'.*ACCESS_REFUSED/) });
    const noVhost = await attempt(`amqp://guest:guest@127.0.0.1:5672/nope-vhost`).catch((e: unknown) => e);
    expect(noVhost).toMatchObject({
      code: "refused",
      message: expect.stringMatching(/\(vhost 'nope-vhost'\) refused to open the virtual host/),
    });
    const started = Date.now();
    const down = await attempt(`amqp://guest:${secret}@127.0.0.1:1`).catch((e: unknown) => e);
    expect(down).toMatchObject({
      code: "unreachable",
      message: expect.stringMatching(/cannot connect to RabbitMQ at 127\.0\.0\.1:1.*ECONNREFUSED/),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(createRabbitmqConnector({ name: "bad", url: RABBITMQ_URL, options: { queue: "" } })).rejects.toMatchObject({
      code: "invalid_config",
    });
    for (const e of [refused, down]) expect(String((e as Error).message)).not.toContain(secret);
  });

  it("survives the broker going away: no crash, a clear error, the held messages back in the queue, then reconnects", async () => {
    const t = await broker.topology();
    await rejected(t, 5);
    const relay = await Relay.start();
    try {
      const c = await connect(t.dlq, relay.url());
      const held = await c.take(3, 2000);
      expect(held).toHaveLength(3);
      relay.cut();
      await broker.waitForCount(t.dlq, 5);
      await expect(c.ack(held)).rejects.toMatchObject({ code: "connection_lost", message: expect.stringMatching(/put them back/) });
      // The next call connects again.
      const again = await c.take(10, 2000);
      expect(positions(again)).toHaveLength(5);
      await c.ack(again);
      expect(await c.waiting()).toBe(0);
      const [m] = again;
      if (!m) throw new Error("no dead letter");
      relay.cut();
      await sleep(100);
      expect(await c.publish({ key: "after-cut", body: m.body, origin: m.origin })).toEqual({ outcome: "applied" });
    } finally {
      await relay.stop();
    }
  });

  it("rejects every call after close, and closing twice is fine", async () => {
    const t = await broker.topology();
    const c = await connect(t.dlq);
    await c.close();
    await c.close();
    await expect(c.take(1, 10)).rejects.toMatchObject({ code: "closed" });
    await expect(c.waiting()).rejects.toMatchObject({ code: "closed" });
    expect(await c.publish({ key: "k", body: Buffer.alloc(0), origin: (await rejectedOrigin(t)).origin })).toMatchObject({
      outcome: "failed",
      retryable: true,
    });
  });
});

async function rejectedOrigin(t: Topology): Promise<PulledMessage> {
  await rejected(t, 1);
  const c = await connect(t.dlq);
  const [m] = await c.take(1, 2000);
  if (!m) throw new Error("no dead letter");
  return m;
}
