import "server-only";
import type { Channel, ConsumeMessage } from "amqplib";
import { RabbitmqSourceError, replyCode, replyText } from "./errors";
import { type AmqpSession, ChannelSlot, closedError, plainChannel } from "./session";

// Reads the dead-letter queue with manual acknowledgement. Each take is a short-lived consumer whose prefetch
// is the take's `max`: the broker pushes up to `max` messages without a round trip per message (basic.get
// costs one each), and can never push more, so every message delivered before the cancel is returned and none
// has to be handed back. A message stays unacknowledged on this channel until `ack`; if the channel or the
// connection closes first (or the process dies), RabbitMQ puts it back in the queue.

/** After the first message, a pause this long means the queue has nothing more ready right now. */
const QUIET_MS = 25;
/** RabbitMQ's prefetch count is a 16-bit field. */
const MAX_PREFETCH = 65_535;

/** The receipt of one taken message: the channel it is unacknowledged on, and its delivery tag there. */
export class Delivery {
  constructor(
    readonly channel: Channel,
    readonly message: ConsumeMessage,
  ) {}
}

export class DeadLetterReader {
  private readonly slot: ChannelSlot<Channel>;
  /** Unacknowledged deliveries of the open channel, by tag: acking a tag twice would close the channel (406). */
  private outstanding = new Map<number, Delivery>();
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: AmqpSession,
    private readonly queue: string,
  ) {
    this.slot = new ChannelSlot(session, plainChannel, undefined, (closed) => {
      for (const [tag, d] of this.outstanding) if (d.channel === closed) this.outstanding.delete(tag);
    });
  }

  /** Takes run one at a time: a channel's prefetch setting applies to the next consumer it starts. */
  take(max: number, waitMs: number): Promise<Delivery[]> {
    const run = this.turn.then(() => this.takeNow(max, waitMs));
    this.turn = run.catch(() => undefined);
    return run;
  }

  async ack(receipts: readonly Delivery[]): Promise<void> {
    if (receipts.length === 0) return;
    const channel = this.slot.live;
    const current = receipts.filter((r) => r.channel === channel && this.outstanding.has(r.message.fields.deliveryTag));
    if (channel !== null && current.length > 0) {
      this.sendAcks(channel, current);
      // A round trip on the same channel: when it answers, the broker has the acks (and a count read after
      // this resolves no longer includes them). It also reports a channel that died meanwhile.
      try {
        await channel.checkQueue(this.queue);
      } catch (err) {
        throw this.failure(err, `could not confirm the acknowledgement of ${current.length} message(s)`);
      }
    }
    const stale = receipts.filter((r) => r.channel !== channel).length;
    if (stale > 0) {
      throw new RabbitmqSourceError(
        "connection_lost",
        `${stale} message(s) could not be acknowledged: the channel they were taken on has closed, so RabbitMQ has put them back in '${this.queue}' and will hand them out again`,
      );
    }
  }

  private sendAcks(channel: Channel, deliveries: readonly Delivery[]): void {
    const tags = deliveries.map((d) => d.message.fields.deliveryTag).sort((a, b) => a - b);
    const highest = tags.at(-1) ?? 0;
    let below = 0;
    for (const tag of this.outstanding.keys()) if (tag <= highest) below += 1;
    const distinct = new Set(tags).size;
    const top = this.outstanding.get(highest);
    try {
      if (top !== undefined && distinct === below) {
        // The usual case (everything taken so far, oldest first): one frame acknowledges them all.
        channel.ack(top.message, true);
        for (const tag of tags) this.outstanding.delete(tag);
        return;
      }
      for (const d of deliveries) {
        if (this.outstanding.delete(d.message.fields.deliveryTag)) channel.ack(d.message);
      }
    } catch (err) {
      throw this.failure(err, "could not send the acknowledgements");
    }
  }

  private async takeNow(max: number, waitMs: number): Promise<Delivery[]> {
    const limit = Math.min(Math.floor(max), MAX_PREFETCH);
    if (!(limit >= 1)) return [];
    const started = Date.now();
    const channel = await this.slot.get();
    const got = await this.consume(channel, limit, Math.max(0, waitMs - (Date.now() - started)));
    const deliveries = got.map((m) => new Delivery(channel, m));
    for (const d of deliveries) this.outstanding.set(d.message.fields.deliveryTag, d);
    return deliveries;
  }

  private async consume(channel: Channel, limit: number, waitMs: number): Promise<ConsumeMessage[]> {
    const got: ConsumeMessage[] = [];
    let finish = (): void => undefined;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let channelClosed = false;
    let brokerCancelled = false;
    const onClose = () => {
      channelClosed = true;
      finish();
    };
    channel.once("close", onClose);
    let quiet: NodeJS.Timeout | undefined;
    const deadline = setTimeout(finish, waitMs);
    try {
      await channel.prefetch(limit);
      const { consumerTag } = await channel.consume(
        this.queue,
        (msg) => {
          // null: the broker cancelled the consumer (the queue was deleted).
          if (msg === null) {
            brokerCancelled = true;
            finish();
            return;
          }
          got.push(msg);
          clearTimeout(quiet);
          if (got.length >= limit) finish();
          else quiet = setTimeout(finish, QUIET_MS);
        },
        { noAck: false },
      );
      await done;
      // Deliveries already on their way arrive before cancel-ok and are in `got`; none come after it.
      if (!channelClosed && !brokerCancelled) await channel.cancel(consumerTag);
    } catch (err) {
      throw this.failure(err, `could not read from '${this.queue}'`);
    } finally {
      clearTimeout(deadline);
      clearTimeout(quiet);
      channel.off("close", onClose);
    }
    if (channelClosed) {
      if (this.session.isClosed) throw closedError();
      throw new RabbitmqSourceError(
        "connection_lost",
        `the channel to RabbitMQ at ${this.session.label} closed while reading '${this.queue}'${this.slot.closeReason ? ` (${this.slot.closeReason})` : ""}; the ${got.length} message(s) received are back in the queue`,
      );
    }
    if (brokerCancelled && got.length === 0) {
      throw new RabbitmqSourceError("not_found", `RabbitMQ cancelled the read from '${this.queue}' (was the queue deleted?)`);
    }
    return got;
  }

  private failure(err: unknown, what: string): RabbitmqSourceError {
    const text = this.session.describe(err);
    if (err instanceof RabbitmqSourceError) return err;
    if (replyCode(err) === 404)
      return new RabbitmqSourceError("not_found", `${what}: queue '${this.queue}' does not exist (${replyText(text)})`);
    if (replyCode(err) === 403) return new RabbitmqSourceError("refused", `${what}: ${replyText(text)}`);
    const reason = this.slot.closeReason;
    return new RabbitmqSourceError("connection_lost", `${what} on RabbitMQ at ${this.session.label}: ${reason ?? text}`);
  }
}
