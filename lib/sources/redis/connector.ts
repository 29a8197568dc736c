import "server-only";
import type { ConnectorConfig, OutgoingMessage, PublishResult, PulledMessage, SourceConnector } from "../connector";
import { claimReader } from "./claim-reader";
import { connect, type ConnectionEvents, type RedisConnection } from "./connection";
import { isRetryable, RedisSourceError, sourceError } from "./errors";
import { toFieldArgs } from "./fields";
import { parseRedisUrl, type RedisOptions } from "./options";
import { isRedisReceipt, type DeadLetterReader } from "./reader";
import { integerReply } from "./replies";
import { GATE } from "./scripts";
import { streamReader } from "./stream-reader";

/** XACK ids per command: keeps one command's reply time small on a busy server. */
const ACK_CHUNK = 1000;

/**
 * A Redis Streams source (options.ts says which of the two modes). Opens its connections at once, so a wrong URL,
 * refused credentials or an unreachable server reject here with a RedisSourceError.
 */
export async function createRedisConnector(config: ConnectorConfig<RedisOptions>): Promise<SourceConnector> {
  const parsed = parseRedisUrl(config.url);
  if (!parsed.ok) throw new RedisSourceError("invalid_url", `source "${config.name}": the URL ${parsed.message}`);
  const { target } = parsed;
  const options = config.options;
  const log = (message: string) => console.error(`[source ${config.name}] ${message}`);
  const events: ConnectionEvents = {
    lost: (message) => log(`${message}; reconnecting`),
    restored: log,
  };

  const main = await connect(config.url, target, config.name, "main", events);
  let blocking: RedisConnection | null = null;
  let reader: DeadLetterReader;
  if (options.dlqStream === undefined) {
    reader = claimReader(main, options);
  } else {
    try {
      blocking = await connect(config.url, target, config.name, "read", events);
    } catch (e) {
      main.destroy();
      throw e;
    }
    reader = streamReader(main, blocking, { ...options, dlqStream: options.dlqStream });
  }

  const closing = new AbortController();
  const closedError = () => new RedisSourceError("closed", `source "${config.name}" is closed`);

  async function run<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    if (closing.signal.aborted) throw closedError();
    try {
      return await fn();
    } catch (e) {
      throw sourceError(e, target, doing);
    }
  }

  // take keeps a position in the pending lists between calls, so calls run one after another.
  let takes: Promise<unknown> = Promise.resolve();
  function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
    const next = takes.then(fn, fn);
    takes = next.catch(() => undefined);
    return next;
  }

  const failed = (error: string, retryable: boolean): PublishResult => ({ outcome: "failed", error, retryable });

  return {
    provision: () => run("provisioning", () => reader.provision()),

    async deprovision() {
      const { stream, group } = reader;
      await run(`removing consumer "${options.consumer}" from group "${group}" of "${stream}"`, async () => {
        // Nothing to remove when the stream or the group is already gone.
        if ((await main.type(stream)) !== "stream") return;
        if (!(await main.xInfoGroups(stream)).some((g) => g.name === group)) return;
        if (integerReply(await main.releaseConsumer(stream, group, options.consumer), "release script") >= 0) return;
        const held = (await main.xPending(stream, group)).consumers?.find((c) => c.name === options.consumer)?.deliveriesCounter;
        throw new RedisSourceError(
          "pending",
          `consumer "${options.consumer}" still holds ${held ?? "some"} unacknowledged dead letters in group "${group}" of "${stream}"; ` +
            "take and store them (or acknowledge them) before deleting the source",
        );
      });
    },

    waiting: () => run("counting dead letters", () => reader.waiting()),

    take(max: number, waitMs: number): Promise<PulledMessage[]> {
      if (!Number.isInteger(max) || max < 0) return Promise.reject(new RangeError(`take: max must be a whole number ≥ 0, got ${max}`));
      if (!(waitMs >= 0)) return Promise.reject(new RangeError(`take: waitMs must be ≥ 0, got ${waitMs}`));
      return oneAtATime(async () => {
        if (closing.signal.aborted) throw closedError();
        if (max === 0) return [];
        try {
          return await reader.take(max, waitMs, closing.signal);
        } catch (e) {
          // Closing cuts a blocked read short: nothing was handed out, the entries stay pending for the next connector.
          if (closing.signal.aborted) return [];
          reader.rewind();
          throw sourceError(e, target, `reading dead letters from "${reader.stream}"`);
        }
      });
    },

    async ack(messages: readonly PulledMessage[]) {
      const ids: string[] = [];
      for (const m of messages) {
        const r = m.receipt;
        if (!isRedisReceipt(r) || r.stream !== reader.stream || r.group !== reader.group) {
          throw new RedisSourceError(
            "invalid_receipt",
            `ack: message ${m.origin.position} was not taken from group "${reader.group}" of "${reader.stream}"`,
          );
        }
        ids.push(r.id);
      }
      if (ids.length === 0) return;
      await run(`acknowledging ${ids.length} dead letters in "${reader.stream}"`, async () => {
        for (let i = 0; i < ids.length; i += ACK_CHUNK) {
          const chunk = ids.slice(i, i + ACK_CHUNK);
          await main.xAck(reader.stream, reader.group, chunk);
          reader.forget(chunk);
        }
      });
    },

    async publish(message: OutgoingMessage): Promise<PublishResult> {
      const d = message.origin.destination;
      if (d.type !== "redis") return failed(`the message's destination is a ${d.type} destination, not a Redis stream`, false);
      if (message.key === "") return failed("the message has no idempotency key to publish it once with", false);
      if (closing.signal.aborted) return failed(closedError().message, true);
      try {
        const code = integerReply(
          await main.publishGated(
            `${options.gatePrefix}${message.key}`,
            d.stream,
            toFieldArgs(d.field, message.body, message.origin.headers),
          ),
          "publish script",
        );
        if (code === GATE.applied) return { outcome: "applied" };
        if (code === GATE.deduped) return { outcome: "deduped" };
        if (code === GATE.noStream) return failed(`stream "${d.stream}" does not exist on ${target.display}`, false);
        return failed(`"${d.stream}" on ${target.display} is not a stream`, false);
      } catch (e) {
        return failed(sourceError(e, target, `publishing to "${d.stream}"`).message, isRetryable(e));
      }
    },

    async close() {
      if (closing.signal.aborted) return;
      closing.abort();
      // destroy, not close: a blocked XREADGROUP would hold a graceful close for up to its whole wait.
      blocking?.destroy();
      main.destroy();
    },
  };
}
