import "server-only";
import amqp, { type Channel, type ChannelModel, type ConfirmChannel } from "amqplib";
import { RabbitmqSourceError, messageOf, replyCode, scrub } from "./errors";
import type { RabbitmqUrl } from "./options";

// One AMQP connection per connector, opened again on the next call after the broker dropped it, and the
// channels each part of the connector owns. A channel is the unit RabbitMQ closes on a soft error (a 404 on
// publish, an unknown delivery tag), so the reader, the publisher and the passive checks each keep their own:
// a publish to a missing exchange must not hand the reader's unacknowledged messages back to the queue.

/** Bounds the TCP connect and the AMQP handshake together (amqplib's socket timeout covers both). */
const CONNECT_TIMEOUT_MS = 10_000;

export class AmqpSession {
  private model: ChannelModel | null = null;
  private connecting: Promise<ChannelModel> | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly where: RabbitmqUrl,
    private readonly connectionName: string,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** The open connection, connecting (once, for all callers at that moment) when there is none. */
  connection(): Promise<ChannelModel> {
    if (this.closed) return Promise.reject(closedError());
    if (this.model !== null) return Promise.resolve(this.model);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const model = this.model ?? (await this.connecting?.catch(() => null)) ?? null;
    this.model = null;
    // Closing the connection is what returns every unacknowledged message to its queue.
    await model?.close().catch(() => undefined);
  }

  /** An error in amqplib's words, without the URL or its password. */
  describe(err: unknown): string {
    return scrub(messageOf(err), this.url);
  }

  get label(): string {
    return `${this.where.hostname}:${this.where.port} (vhost '${this.where.vhost}')`;
  }

  private async connect(): Promise<ChannelModel> {
    let model: ChannelModel;
    try {
      model = await amqp.connect(this.url, {
        timeout: CONNECT_TIMEOUT_MS,
        // Each take is a few small command frames, which Nagle's algorithm would hold back (bench:sources).
        noDelay: true,
        clientProperties: { connection_name: this.connectionName },
      });
    } catch (err) {
      throw this.connectError(err);
    }
    if (this.closed) {
      await model.close().catch(() => undefined);
      throw closedError();
    }
    // Without a listener an 'error' event (broker restart, heartbeat timeout) would crash the process. The
    // next call connects again; the messages this connection held are back in the queue by then.
    model.on("error", () => undefined);
    model.on("close", () => {
      if (this.model === model) this.model = null;
    });
    this.model = model;
    return model;
  }

  private connectError(err: unknown): RabbitmqSourceError {
    const text = this.describe(err);
    const code = replyCode(err) ?? /\b(\d{3}) \(/.exec(text)?.[1];
    if (String(code) === "403") {
      const user = this.where.username ?? "guest";
      return new RabbitmqSourceError("refused", `RabbitMQ at ${this.label} refused user '${user}': ${text}`);
    }
    // RabbitMQ answers connection.open for an unknown or forbidden virtual host with connection.close (530),
    // whose reason amqplib does not pass on: it says only "Expected ConnectionOpenOk; got <ConnectionClose …>".
    if (String(code) === "530" || /ConnectionOpenOk; got <ConnectionClose/.test(text)) {
      const user = this.where.username ?? "guest";
      return new RabbitmqSourceError(
        "refused",
        `RabbitMQ at ${this.label} refused to open the virtual host: it does not exist, or user '${user}' may not use it`,
      );
    }
    return new RabbitmqSourceError("unreachable", `cannot connect to RabbitMQ at ${this.label}: ${text}`);
  }
}

export function closedError(): RabbitmqSourceError {
  return new RabbitmqSourceError("closed", "the RabbitMQ connector is closed");
}

/**
 * One channel, opened on first use and again after RabbitMQ (or the connection's end) closed it. `closeReason`
 * keeps the broker's words from the last close, which amqplib gives only to the 'error' event.
 */
export class ChannelSlot<C extends Channel> {
  private current: C | null = null;
  private opening: Promise<C> | null = null;
  closeReason: string | null = null;

  constructor(
    private readonly session: AmqpSession,
    private readonly open: (model: ChannelModel) => Promise<C>,
    private readonly onOpen: (channel: C) => void = () => undefined,
    private readonly onClose: (channel: C) => void = () => undefined,
  ) {}

  /** The channel if it is open right now, without opening one. */
  get live(): C | null {
    return this.current;
  }

  get(): Promise<C> {
    if (this.current !== null) return Promise.resolve(this.current);
    this.opening ??= this.openChannel().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async openChannel(): Promise<C> {
    const model = await this.session.connection();
    let channel: C;
    try {
      channel = await this.open(model);
    } catch (err) {
      throw new RabbitmqSourceError(
        "connection_lost",
        `cannot open a channel to RabbitMQ at ${this.session.label}: ${this.session.describe(err)}`,
      );
    }
    channel.on("error", (err: Error) => {
      this.closeReason = this.session.describe(err);
    });
    channel.on("close", () => {
      if (this.current === channel) this.current = null;
      this.onClose(channel);
    });
    this.closeReason = null;
    this.current = channel;
    this.onOpen(channel);
    return channel;
  }
}

export function confirmChannel(model: ChannelModel): Promise<ConfirmChannel> {
  return model.createConfirmChannel();
}

export function plainChannel(model: ChannelModel): Promise<Channel> {
  return model.createChannel();
}
