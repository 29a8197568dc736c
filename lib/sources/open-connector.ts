import "server-only";
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

/** Opens the broker connection of a stored source; options are parsed again (stored ones may predate a default). */
export async function openConnector(source: SourceConfig): Promise<SourceConnector> {
  const base = { name: source.name, url: source.url };
  switch (source.type) {
    case "rabbitmq":
      return createRabbitmqConnector({
        ...base,
        options: SOURCE_OPTIONS.rabbitmq.parse(source.options),
      } satisfies ConnectorConfig<RabbitmqOptions>);
    case "nats":
      return createNatsConnector({ ...base, options: SOURCE_OPTIONS.nats.parse(source.options) } satisfies ConnectorConfig<NatsOptions>);
    case "redis":
      return createRedisConnector({ ...base, options: SOURCE_OPTIONS.redis.parse(source.options) } satisfies ConnectorConfig<RedisOptions>);
    case "kafka":
      return createKafkaConnector({ ...base, options: SOURCE_OPTIONS.kafka.parse(source.options) } satisfies ConnectorConfig<KafkaOptions>);
    case "sqs":
      return createSqsConnector({ ...base, options: SOURCE_OPTIONS.sqs.parse(source.options) } satisfies ConnectorConfig<SqsOptions>);
  }
}
