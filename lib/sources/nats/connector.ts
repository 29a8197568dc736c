import "server-only";
import type { ConnectorConfig, OutgoingMessage, PublishResult, PulledMessage, SourceConnector } from "../connector";
import { settleDeadLetters } from "./ack";
import { openSession, type NatsSession } from "./connection";
import { NatsSourceError } from "./errors";
import { advisoryCapture } from "./names";
import { natsOptionsSchema, parseNatsUrl, type NatsOptions } from "./options";
import { advisoryConsumerInfo, deprovisionCapture, provisionCapture } from "./provision";
import { publishBack } from "./publish";
import { takeDeadLetters } from "./take";

// A NATS JetStream source: dead letters are the messages its stream's consumers gave up on (max_deliver reached,
// or term()), announced by advisories that provision() captures into a stream of their own.

function validOptions(options: unknown): NatsOptions {
  const parsed = natsOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  throw new NatsSourceError("invalid_config", `NATS source options: ${where}${issue?.message ?? "invalid"}`);
}

export async function createNatsConnector(config: ConnectorConfig<NatsOptions>): Promise<SourceConnector> {
  const options = validOptions(config.options);
  const url = parseNatsUrl(config.url);
  if (!url.ok) throw new NatsSourceError("invalid_config", `NATS source URL: ${url.message}`);
  const capture = advisoryCapture(config.name, options.stream, options.consumer);
  const session = await openSession(url.address, config.name);

  let closed = false;
  let consumerSeen = false;
  const open = (): NatsSession => {
    if (closed) throw new NatsSourceError("closed", `the NATS connector for source ${JSON.stringify(config.name)} is closed`);
    return session;
  };

  return {
    provision: async () => {
      await provisionCapture(open(), capture, options, config.name);
      consumerSeen = true;
    },
    deprovision: async () => {
      consumerSeen = false;
      await deprovisionCapture(open(), capture);
    },

    waiting: async (): Promise<number | null> => {
      const info = await advisoryConsumerInfo(open(), capture, "counting waiting advisories");
      return info.num_pending + info.num_ack_pending;
    },

    take: async (max: number, waitMs: number): Promise<PulledMessage[]> => {
      if (!Number.isSafeInteger(max) || max < 1)
        throw new NatsSourceError("invalid_argument", `take() needs a whole number of messages ≥ 1, not ${max}`);
      if (!Number.isFinite(waitMs) || waitMs < 0)
        throw new NatsSourceError("invalid_argument", `take() needs a wait ≥ 0 ms, not ${waitMs}`);
      const s = open();
      // The server ignores a pull for a consumer that does not exist, so take() would only time out: look once.
      if (!consumerSeen) await advisoryConsumerInfo(s, capture, "taking dead letters");
      consumerSeen = true;
      try {
        return await takeDeadLetters(s, capture, max, Math.round(waitMs));
      } catch (err) {
        consumerSeen = false;
        throw err;
      }
    },

    ack: async (messages: readonly PulledMessage[]): Promise<void> => {
      const s = open();
      if (messages.length > 0) await settleDeadLetters(s, messages);
    },

    publish: async (message: OutgoingMessage): Promise<PublishResult> => publishBack(open(), message),

    close: async () => {
      closed = true;
      await session.close();
    },
  };
}
