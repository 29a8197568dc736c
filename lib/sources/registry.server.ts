import "server-only";
import type { z } from "zod";
import type { ConnectorConfig, SourceConnector } from "./connector";
import { createKafkaConnector } from "./kafka/connector";
import { createNatsConnector } from "./nats/connector";
import { createRabbitmqConnector } from "./rabbitmq/connector";
import { createRedisConnector } from "./redis/connector";
import { SOURCE_OPTIONS } from "./source-schemas";
import type { SourceType } from "./registry";
import { createSqsConnector } from "./sqs/connector";

// Every broker type's connector, one line each (registry.ts lists what configures and shows them).

type OptionsOf<T extends SourceType> = z.output<(typeof SOURCE_OPTIONS)[T]>;
/** The type's options as its connector takes them: without `destinations` (batch creation applies them). */
type ConnectorOptions<T extends SourceType> = Omit<OptionsOf<T>, "destinations">;

export const CONNECTORS: { [T in SourceType]: (config: ConnectorConfig<ConnectorOptions<T>>) => Promise<SourceConnector> } = {
  rabbitmq: createRabbitmqConnector,
  nats: createNatsConnector,
  redis: createRedisConnector,
  kafka: createKafkaConnector,
  sqs: createSqsConnector,
};

/** What a connection is opened from: the stored source with its URL unsealed. */
export interface SourceConfig {
  name: string;
  type: SourceType;
  url: string;
  options: Record<string, unknown>;
}

/** Opens the broker connection of a stored source. */
export async function openConnector<T extends SourceType>(source: SourceConfig & { type: T }): Promise<SourceConnector> {
  // Parsed again (stored options may predate a default), without `destinations`, which limit where a replay may
  // publish (batch creation applies them), not the connection.
  const { destinations: _limits, ...options } = SOURCE_OPTIONS[source.type].parse(source.options) as OptionsOf<T> & {
    destinations?: unknown;
  };
  const connect = CONNECTORS[source.type] as (config: ConnectorConfig<ConnectorOptions<T>>) => Promise<SourceConnector>;
  return connect({ name: source.name, url: source.url, options: options as ConnectorOptions<T> });
}
