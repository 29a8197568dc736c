import "server-only";
import type { z } from "zod";
import type { ConnectorConfig, SourceConnector } from "./connector";
import { createKafkaConnector } from "./kafka/connector";
import type { KafkaOptions } from "./kafka/options";
import { createNatsConnector } from "./nats/connector";
import type { NatsOptions } from "./nats/options";
import { createRabbitmqConnector } from "./rabbitmq/connector";
import type { RabbitmqOptions } from "./rabbitmq/options";
import { createRedisConnector } from "./redis/connector";
import type { RedisOptions } from "./redis/options";
import { createSqsConnector } from "./sqs/connector";
import type { SqsOptions } from "./sqs/options";
import { SOURCE_OPTIONS, type SourceType } from "./source-schemas";

/** What a connection is opened from: the stored source with its URL unsealed. */
export interface SourceConfig {
  name: string;
  type: SourceType;
  url: string;
  options: Record<string, unknown>;
}

/**
 * The type's options as its connector takes them: parsed again (stored ones may predate a default), without
 * `destinations`, which limit where a replay may publish (batch creation applies them), not the connection.
 */
function connectorOptions<T extends SourceType>(
  type: T,
  options: Record<string, unknown>,
): Omit<z.output<(typeof SOURCE_OPTIONS)[T]>, "destinations"> {
  const { destinations: _limits, ...rest } = SOURCE_OPTIONS[type].parse(options) as z.output<(typeof SOURCE_OPTIONS)[T]> & {
    destinations?: unknown;
  };
  return rest;
}

/** Opens the broker connection of a stored source. */
export async function openConnector(source: SourceConfig): Promise<SourceConnector> {
  const base = { name: source.name, url: source.url };
  switch (source.type) {
    case "rabbitmq":
      return createRabbitmqConnector({
        ...base,
        options: connectorOptions("rabbitmq", source.options),
      } satisfies ConnectorConfig<RabbitmqOptions>);
    case "nats":
      return createNatsConnector({ ...base, options: connectorOptions("nats", source.options) } satisfies ConnectorConfig<NatsOptions>);
    case "redis":
      return createRedisConnector({ ...base, options: connectorOptions("redis", source.options) } satisfies ConnectorConfig<RedisOptions>);
    case "kafka":
      return createKafkaConnector({ ...base, options: connectorOptions("kafka", source.options) } satisfies ConnectorConfig<KafkaOptions>);
    case "sqs":
      return createSqsConnector({ ...base, options: connectorOptions("sqs", source.options) } satisfies ConnectorConfig<SqsOptions>);
  }
}
