import "server-only";
import type { ConfirmChannel, Message } from "amqplib";
import type { OutgoingMessage, PublishResult } from "../connector";
import { RabbitmqSourceError, messageOf } from "./errors";
import { type PublishPlan, planPublish } from "./outgoing";
import type { PassiveChecks } from "./passive-checks";
import { type AmqpSession, ChannelSlot, confirmChannel } from "./session";

// Publishes dead letters back on a confirm channel, `mandatory` so that a message no queue takes comes back
// (basic.return) instead of vanishing. Publishes run concurrently on the one channel; RabbitMQ sends a
// returned message's basic.return before its basic.ack, so the confirm callback knows whether it was routed.
//
// A publish to an exchange that does not exist makes RabbitMQ close the channel (404), failing every publish
// in flight on it. So an exchange is first checked once by a passive declare on another channel, which gives
// that publish the broker's exact answer; an exchange deleted after its check still closes this channel, whose
// publishes then fail as retryable and are checked again on the next try.

/** A publish the broker never confirms (a memory alarm blocks the connection) fails after this long. */
const CONFIRM_TIMEOUT_MS = 30_000;

interface Pending {
  returned: string | null;
}

interface ChannelState {
  /** Publishes awaiting their confirm, by message_id (the key), oldest first: returns come in publish order. */
  pending: Map<string, Pending[]>;
  /** Set while amqplib's write buffer is full (publish returned false), until 'drain' or 'close'. */
  writable: Promise<void> | null;
}

export class Publisher {
  private readonly slot: ChannelSlot<ConfirmChannel>;
  private readonly states = new WeakMap<ConfirmChannel, ChannelState>();
  private readonly checkedExchanges = new Set<string>();

  constructor(
    session: AmqpSession,
    private readonly checks: PassiveChecks,
  ) {
    this.slot = new ChannelSlot(
      session,
      confirmChannel,
      (channel) => this.watch(channel),
      () => this.checkedExchanges.clear(),
    );
  }

  async publish(message: OutgoingMessage): Promise<PublishResult> {
    const planned = planPublish(message);
    if (!planned.ok) return failed(planned.problem, false);
    const { exchange } = planned.plan;
    // "" is the default exchange: it always exists and cannot be declared, even passively.
    if (exchange !== "" && !this.checkedExchanges.has(exchange)) {
      try {
        await this.checks.assertExchange(exchange);
        this.checkedExchanges.add(exchange);
      } catch (err) {
        const refused = err instanceof RabbitmqSourceError && (err.code === "not_found" || err.code === "refused");
        return failed(messageOf(err), !refused);
      }
    }
    let channel: ConfirmChannel;
    try {
      channel = await this.slot.get();
    } catch (err) {
      return failed(messageOf(err), true);
    }
    const state = this.states.get(channel);
    if (state === undefined) return failed("the publishing channel was not set up", true);
    while (state.writable !== null) await state.writable;
    return this.send(channel, state, planned.plan);
  }

  private send(channel: ConfirmChannel, state: ChannelState, plan: PublishPlan): Promise<PublishResult> {
    const { exchange, routingKey, content, options } = plan;
    const key = options.messageId;
    return new Promise<PublishResult>((resolve) => {
      const pending: Pending = { returned: null };
      const queue = state.pending.get(key) ?? [];
      queue.push(pending);
      state.pending.set(key, queue);
      const settle = (result: PublishResult) => {
        clearTimeout(timer);
        const left = (state.pending.get(key) ?? []).filter((p) => p !== pending);
        if (left.length > 0) state.pending.set(key, left);
        else state.pending.delete(key);
        resolve(result);
      };
      const timer = setTimeout(
        () => settle(failed(`RabbitMQ did not confirm the publish within ${CONFIRM_TIMEOUT_MS / 1000} s; it may still arrive`, true)),
        CONFIRM_TIMEOUT_MS,
      );
      const where = `exchange '${exchange}' with routing key '${routingKey}'`;
      try {
        const ok = channel.publish(exchange, routingKey, content, options, (err: unknown) => {
          if (err) settle(failed(this.refusal(err, where), true));
          else if (pending.returned !== null) settle(failed(`unroutable: no queue is bound to ${where} (${pending.returned})`, true));
          else settle({ outcome: "applied" });
        });
        if (!ok && state.writable === null) state.writable = drained(channel).finally(() => (state.writable = null));
      } catch (err) {
        // amqplib throws when the channel has just closed (worth another try) or when the message cannot be
        // encoded (a header table over 64 KiB: it never will be).
        const encoding = err instanceof RangeError || err instanceof TypeError;
        settle(failed(encoding ? `the message cannot be encoded for AMQP: ${messageOf(err)}` : this.refusal(err, where), !encoding));
      }
    });
  }

  private refusal(err: unknown, where: string): string {
    const text = messageOf(err);
    if (text === "message nacked") return `RabbitMQ refused the message for ${where} (basic.nack)`;
    const reason = this.slot.closeReason;
    return `the publishing channel closed before RabbitMQ confirmed the message for ${where}: ${reason ?? text}`;
  }

  private watch(channel: ConfirmChannel): void {
    const state: ChannelState = { pending: new Map(), writable: null };
    this.states.set(channel, state);
    channel.on("return", (msg: Message) => {
      const id: unknown = msg.properties.messageId;
      if (typeof id !== "string") return;
      const pending = state.pending.get(id)?.find((p) => p.returned === null);
      if (pending !== undefined) pending.returned = returnReason(msg);
    });
  }
}

/** basic.return's reply code and text ("312 NO_ROUTE"); amqplib puts them on `fields` without typing them. */
function returnReason(msg: Message): string {
  const fields: object = msg.fields;
  const code = "replyCode" in fields ? String(fields.replyCode) : "";
  const text = "replyText" in fields ? String(fields.replyText) : "returned";
  return `${code} ${text}`.trim();
}

function drained(channel: ConfirmChannel): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      channel.off("drain", done);
      channel.off("close", done);
      resolve();
    };
    channel.on("drain", done);
    channel.on("close", done);
  });
}

function failed(error: string, retryable: boolean): PublishResult {
  return { outcome: "failed", error, retryable };
}
