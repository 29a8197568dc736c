import "server-only";
import type { Channel } from "amqplib";
import { RabbitmqSourceError, replyCode, replyText } from "./errors";
import { type AmqpSession, ChannelSlot, plainChannel } from "./session";

// Passive declares: "does this queue / exchange exist", never creating one. RabbitMQ answers a missing one by
// closing the channel (404), so these run on channels of their own, opened again on the next check: one for
// the DLQ's count, one for exchanges, so a publish to a missing exchange cannot fail a concurrent waiting().

export class PassiveChecks {
  private readonly queues: ChannelSlot<Channel>;
  private readonly exchanges: ChannelSlot<Channel>;

  constructor(private readonly session: AmqpSession) {
    this.queues = new ChannelSlot(session, plainChannel);
    this.exchanges = new ChannelSlot(session, plainChannel);
  }

  /** Messages ready in the queue (not those handed out and unacknowledged). */
  async queueMessageCount(queue: string): Promise<number> {
    const channel = await this.queues.get();
    try {
      return (await channel.checkQueue(queue)).messageCount;
    } catch (err) {
      throw this.failure(err, `queue '${queue}'`);
    }
  }

  async assertExchange(exchange: string): Promise<void> {
    const channel = await this.exchanges.get();
    try {
      await channel.checkExchange(exchange);
    } catch (err) {
      throw this.failure(err, `exchange '${exchange}'`);
    }
  }

  private failure(err: unknown, what: string): RabbitmqSourceError {
    const text = this.session.describe(err);
    if (replyCode(err) === 404) {
      return new RabbitmqSourceError("not_found", `${what} does not exist on RabbitMQ at ${this.session.label}: ${replyText(text)}`);
    }
    if (replyCode(err) === 403)
      return new RabbitmqSourceError("refused", `RabbitMQ at ${this.session.label} refused access to ${what}: ${replyText(text)}`);
    return new RabbitmqSourceError("connection_lost", `could not check ${what} on RabbitMQ at ${this.session.label}: ${text}`);
  }
}
