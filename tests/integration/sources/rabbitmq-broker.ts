import { randomBytes } from "node:crypto";
import net from "node:net";
import amqp, { type Channel, type ChannelModel, type ConsumeMessage, type Options } from "amqplib";
import type { SourceConnector } from "../../../lib/sources/connector";
import { createRabbitmqConnector } from "../../../lib/sources/rabbitmq/connector";

// The test side of the RabbitMQ source: a topology per test run (random names, removed afterwards) and
// dead letters made the broker's own way — a consumer rejecting with requeue=false, or a quorum queue
// dead-lettering a message past its x-delivery-limit.

export const RABBITMQ_URL = process.env.RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672";

const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

/** The i-th original's body: every byte value, then its number. */
export const body = (i: number): Buffer => Buffer.concat([BINARY, Buffer.from(`#${i}`)]);

/** The i-th original's properties and headers (a byte-array header among them). */
export const props = (i: number): Options.Publish => ({
  messageId: `m-${i}`,
  contentType: "application/octet-stream",
  correlationId: `corr-${i}`,
  timestamp: 1_700_000_000 + i,
  appId: "redrive-test",
  type: "order.created",
  priority: 1,
  deliveryMode: 2,
  headers: { tenant: "acme", seq: i, raw: Buffer.from([0, i, 255]) },
});

/** Connectors a test file opens, closed after it. */
export class Connectors {
  private readonly open: SourceConnector[] = [];

  connect = async (queue: string, url = RABBITMQ_URL): Promise<SourceConnector> => {
    const c = await createRabbitmqConnector({ name: "test", url, options: { queue } });
    this.open.push(c);
    return c;
  };

  async closeAll(): Promise<void> {
    for (const c of this.open) await c.close();
  }
}

export interface Topology {
  suffix: string;
  /** topic exchange the originals are published to */
  exchange: string;
  /** fanout exchange every work queue dead-letters into */
  dlx: string;
  /** classic queue bound to `orders.#`; its consumer rejects */
  work: string;
  /** quorum queue bound to `quorum.#`, x-delivery-limit 1 */
  quorum: string;
  /** classic DLQ bound to the DLX */
  dlq: string;
  /** quorum DLQ bound to the DLX as well (every dead letter lands in both) */
  quorumDlq: string;
}

export class Broker {
  private constructor(
    readonly model: ChannelModel,
    readonly channel: Channel,
    private readonly queues: string[] = [],
    private readonly exchanges: string[] = [],
  ) {}

  static async connect(): Promise<Broker> {
    const model = await amqp.connect(RABBITMQ_URL);
    model.on("error", () => undefined);
    const channel = await model.createChannel();
    channel.on("error", () => undefined);
    return new Broker(model, channel);
  }

  async topology(): Promise<Topology> {
    const suffix = randomBytes(4).toString("hex");
    const t: Topology = {
      suffix,
      exchange: `redrive.test.work.${suffix}`,
      dlx: `redrive.test.dlx.${suffix}`,
      work: `redrive.test.work.${suffix}`,
      quorum: `redrive.test.quorum.${suffix}`,
      dlq: `redrive.test.dlq.${suffix}`,
      quorumDlq: `redrive.test.qdlq.${suffix}`,
    };
    await this.exchange(t.exchange, "topic");
    await this.exchange(t.dlx, "fanout");
    await this.queue(t.dlq, {});
    await this.queue(t.quorumDlq, { arguments: { "x-queue-type": "quorum" } });
    await this.queue(t.work, { deadLetterExchange: t.dlx });
    await this.queue(t.quorum, { deadLetterExchange: t.dlx, arguments: { "x-queue-type": "quorum", "x-delivery-limit": 1 } });
    for (const q of [t.dlq, t.quorumDlq]) await this.channel.bindQueue(q, t.dlx, "");
    await this.channel.bindQueue(t.work, t.exchange, "orders.#");
    await this.channel.bindQueue(t.quorum, t.exchange, "quorum.#");
    return t;
  }

  async exchange(name: string, type: string): Promise<void> {
    await this.channel.assertExchange(name, type, { durable: true });
    this.exchanges.push(name);
  }

  async queue(name: string, options: Options.AssertQueue): Promise<void> {
    await this.channel.assertQueue(name, { durable: true, ...options });
    this.queues.push(name);
  }

  /** Publishes to `exchange` on a confirm channel, so the messages are in their queues when this resolves. */
  async publish(exchange: string, routingKey: string, bodies: Buffer[], options: (i: number) => Options.Publish): Promise<void> {
    const ch = await this.model.createConfirmChannel();
    bodies.forEach((b, i) => ch.publish(exchange, routingKey, b, options(i)));
    await ch.waitForConfirms();
    await ch.close();
  }

  /** `count` originals published to orders.eu and rejected by the work queue's consumer: in both DLQs after. */
  async rejected(t: Topology, count: number, options = props): Promise<void> {
    await this.publish(
      t.exchange,
      "orders.eu",
      Array.from({ length: count }, (_, i) => body(i)),
      options,
    );
    await this.rejectAll(t.work, count);
    await this.waitForCount(t.dlq, count);
    await this.waitForCount(t.quorumDlq, count);
  }

  /** Rejects (requeue=false) `count` messages from `queue`, which its DLX routes on. */
  async rejectAll(queue: string, count: number): Promise<void> {
    await this.drive(
      queue,
      count,
      (ch, m) => ch.nack(m, false, false),
      () => true,
    );
  }

  /** Nacks with requeue=true until the quorum queue dead-letters each message itself (delivery_limit). */
  async requeueUntilDead(queue: string, count: number, dlq: string, alreadyInDlq = 0): Promise<void> {
    await this.drive(
      queue,
      count,
      (ch, m) => ch.nack(m, false, true),
      async () => (await this.channel.checkQueue(dlq)).messageCount >= alreadyInDlq + count,
    );
  }

  async waitForCount(queue: string, count: number, timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const { messageCount } = await this.channel.checkQueue(queue);
      if (messageCount === count) return;
      if (Date.now() > until) throw new Error(`queue ${queue} has ${messageCount} messages, expected ${count}`);
      await sleep(50);
    }
  }

  async exists(queue: string): Promise<boolean> {
    const ch = await this.model.createChannel();
    ch.on("error", () => undefined);
    try {
      await ch.checkQueue(queue);
      await ch.close();
      return true;
    } catch {
      return false; // 404: RabbitMQ closed this channel
    }
  }

  /** Everything a plain consumer of `queue` reads within `ms` (auto-ack). */
  async readAll(queue: string, ms = 500): Promise<ConsumeMessage[]> {
    const got: ConsumeMessage[] = [];
    const ch = await this.model.createChannel();
    const { consumerTag } = await ch.consume(queue, (m) => m && got.push(m), { noAck: true });
    await sleep(ms);
    await ch.cancel(consumerTag);
    await ch.close();
    return got;
  }

  async cleanup(): Promise<void> {
    const ch = await this.model.createChannel();
    ch.on("error", () => undefined);
    for (const q of this.queues) await ch.deleteQueue(q).catch(() => undefined);
    for (const e of this.exchanges) await ch.deleteExchange(e).catch(() => undefined);
    await this.model.close().catch(() => undefined);
  }

  private async drive(
    queue: string,
    count: number,
    act: (ch: Channel, m: ConsumeMessage) => void,
    done: () => boolean | Promise<boolean>,
  ): Promise<void> {
    const ch = await this.model.createChannel();
    let seen = 0;
    await ch.prefetch(50);
    const { consumerTag } = await ch.consume(queue, (m) => {
      if (m === null) return;
      seen += 1;
      act(ch, m);
    });
    const until = Date.now() + 15_000;
    while (seen < count || !(await done())) {
      if (Date.now() > until) throw new Error(`driving ${queue}: ${seen} deliveries, the dead letters did not all arrive`);
      await sleep(20);
    }
    await ch.cancel(consumerTag);
    await ch.close();
  }
}

/**
 * A TCP relay in front of the broker that the test can cut, so "the broker went away" happens without
 * touching the shared RabbitMQ.
 */
export class Relay {
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((client) => this.relay(client));
  port = 0;

  private constructor(private readonly target: URL) {}

  static async start(target = new URL(RABBITMQ_URL)): Promise<Relay> {
    const relay = new Relay(target);
    await new Promise<void>((resolve) => relay.server.listen(0, "127.0.0.1", resolve));
    const address = relay.server.address();
    if (address === null || typeof address === "string") throw new Error("the relay has no port");
    relay.port = address.port;
    return relay;
  }

  url(credentials = "guest:guest"): string {
    return `amqp://${credentials}@127.0.0.1:${this.port}`;
  }

  /** Drops every connection through the relay, as a broker restart would. */
  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(Number(this.target.port || 5672), this.target.hostname);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on("error", () => s.destroy());
      s.on("close", () => {
        this.sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
