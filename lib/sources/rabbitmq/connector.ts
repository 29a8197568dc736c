import "server-only";
import type { ConnectorConfig, PulledMessage, SourceConnector } from "../connector";
import { RabbitmqSourceError, messageOf } from "./errors";
import { type RabbitmqOptions, parseRabbitmqUrl, rabbitmqOptionsSchema } from "./options";
import { toOrigin } from "./origin";
import { PassiveChecks } from "./passive-checks";
import { Publisher } from "./publisher";
import { DeadLetterReader, Delivery } from "./reader";
import { AmqpSession, closedError } from "./session";

// A RabbitMQ dead-letter queue as a Redrive source. The queue is the user's: this connector only reads it
// (manual acknowledgement), counts it (passive declare) and publishes dead letters back to the exchange they
// were first published to. It never declares, binds or deletes anything.

export async function createRabbitmqConnector(config: ConnectorConfig<RabbitmqOptions>): Promise<SourceConnector> {
  const options = rabbitmqOptionsSchema.safeParse(config.options);
  if (!options.success) {
    const issue = options.error.issues[0];
    throw new RabbitmqSourceError(
      "invalid_config",
      `RabbitMQ source '${config.name}': ${issue?.path.join(".") || "options"} ${issue?.message ?? "are not valid"}`,
    );
  }
  const url = parseRabbitmqUrl(config.url);
  if (!url.ok) throw new RabbitmqSourceError("invalid_config", `RabbitMQ source '${config.name}': the URL ${url.message}`);

  const { queue } = options.data;
  const session = new AmqpSession(config.url, url.url, `redrive source ${config.name}`);
  // Connecting now makes a wrong URL, refused credentials or a broker that is down fail here, with the reason.
  await session.connection();
  const checks = new PassiveChecks(session);
  const reader = new DeadLetterReader(session, queue);
  const publisher = new Publisher(session, checks);

  const open = () => {
    if (session.isClosed) throw closedError();
  };
  const queueExists = async (): Promise<void> => {
    open();
    try {
      await checks.queueMessageCount(queue);
    } catch (err) {
      if (err instanceof RabbitmqSourceError && err.code === "not_found") {
        throw new RabbitmqSourceError(
          "not_found",
          `${err.message}. Redrive drains an existing dead-letter queue and never creates one: declare '${queue}' (and the dead-letter exchange that feeds it) first`,
        );
      }
      throw err;
    }
  };

  return {
    provision: queueExists,
    // Nothing to remove: provision created nothing, and the queue and its messages are the user's.
    deprovision: async () => undefined,
    waiting: async () => {
      open();
      return checks.queueMessageCount(queue);
    },
    take: async (max, waitMs): Promise<PulledMessage[]> => {
      open();
      const deliveries = await reader.take(max, waitMs);
      return deliveries.map((d) => ({ body: d.message.content, origin: toOrigin(queue, d.message), receipt: d }));
    },
    ack: async (messages) => {
      open();
      const receipts = messages.map((m) => m.receipt);
      const foreign = receipts.filter((r) => !(r instanceof Delivery)).length;
      if (foreign > 0)
        throw new RabbitmqSourceError("invalid_config", `${foreign} message(s) to acknowledge were not taken by this RabbitMQ connector`);
      await reader.ack(receipts.filter((r): r is Delivery => r instanceof Delivery));
    },
    publish: async (message) => {
      if (session.isClosed) return { outcome: "failed", error: closedError().message, retryable: true };
      try {
        return await publisher.publish(message);
      } catch (err) {
        return { outcome: "failed", error: messageOf(err), retryable: true };
      }
    },
    close: () => session.close(),
  };
}
