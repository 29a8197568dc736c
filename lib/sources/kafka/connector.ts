import "server-only";
import { Kafka, logLevel, type LogEntry, type SASLOptions } from "kafkajs";
import type { ConnectorConfig, OutgoingMessage, PublishResult, PulledMessage, SourceConnector } from "../connector";
import { isRetryable, KafkaSourceError, scrub, sourceError } from "./errors";
import { parseKafkaUrl, type KafkaOptions, type KafkaTarget } from "./options";
import { outgoingRecord } from "./outgoing";
import { Publisher } from "./publisher";
import { DlqReader } from "./reader";

const CONNECT_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

function saslOptions(sasl: NonNullable<KafkaTarget["sasl"]>): SASLOptions {
  const { username, password } = sasl;
  if (sasl.mechanism === "scram-sha-256") return { mechanism: "scram-sha-256", username, password };
  if (sasl.mechanism === "scram-sha-512") return { mechanism: "scram-sha-512", username, password };
  return { mechanism: "plain", username, password };
}

function kafkaClient(name: string, target: KafkaTarget): Kafka {
  const log = (entry: LogEntry) => {
    // What kafkajs gives up on reaches the caller as a rejection; its own lines are kept to warnings, scrubbed.
    if (entry.level > logLevel.WARN) return;
    // It warns that an idempotent producer with limited retries may reuse a sequence number after a failed send;
    // the origin sink drops the connection after any failed publish, so the next send starts a new producer id.
    if (String(entry.log.message).startsWith("Limiting retries for the idempotent producer")) return;
    console.error(`[source ${name}] kafka: ${scrub(String(entry.log.message), target.secrets)}`);
  };
  return new Kafka({
    clientId: `redrive-${name}`,
    brokers: target.brokers,
    ssl: target.tls,
    ...(target.sasl ? { sasl: saslOptions(target.sasl) } : {}),
    connectionTimeout: CONNECT_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // The pull loop and the replay engine own retrying; a few quick retries ride out a leader election.
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 3_000 },
    logLevel: logLevel.WARN,
    logCreator: () => log,
  });
}

/**
 * A Kafka dead-letter topic read through a consumer group. Nothing connects until it is used: the origin sink opens
 * connectors only to publish, and a consumer would join the group and take partitions from the puller.
 */
export async function createKafkaConnector(config: ConnectorConfig<KafkaOptions>): Promise<SourceConnector> {
  const parsed = parseKafkaUrl(config.url);
  if (!parsed.ok) throw new KafkaSourceError("invalid_url", `source "${config.name}": the URL ${parsed.message}`);
  const { target } = parsed;
  const { topic, group } = config.options;
  const kafka = kafkaClient(config.name, target);
  const reader = new DlqReader(kafka, config.options);
  const publisher = new Publisher(kafka);
  const admin = kafka.admin({ retry: { retries: 2 } });
  let adminUp: Promise<void> | null = null;
  let closed = false;
  const closedError = () => new KafkaSourceError("closed", `source "${config.name}" is closed`);

  async function withAdmin<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    if (closed) throw closedError();
    try {
      adminUp ??= admin.connect().catch((e: unknown) => {
        adminUp = null;
        throw e;
      });
      await adminUp;
      return await fn();
    } catch (e) {
      throw sourceError(e, target, doing);
    }
  }

  const failed = (error: string, retryable: boolean): PublishResult => ({ outcome: "failed", error, retryable });

  return {
    provision: () =>
      withAdmin(`looking up topic "${topic}"`, async () => {
        // listTopics asks for every topic's metadata, which never auto-creates one (a named lookup may).
        if (!(await admin.listTopics()).includes(topic))
          throw new KafkaSourceError("not_found", `topic "${topic}" does not exist on ${target.display}`);
      }),

    // The group's committed offsets are left to the cluster's offsets.retention.minutes: deleting them would need
    // the group empty, and a source added again under the same group goes on where it stopped.
    deprovision: async () => undefined,

    waiting: () =>
      withAdmin(`counting dead letters in "${topic}"`, async () => {
        const [ends, committed] = await Promise.all([
          admin.fetchTopicOffsets(topic),
          admin.fetchOffsets({ groupId: group, topics: [topic] }),
        ]);
        const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
        let total = 0n;
        for (const p of ends) {
          const from = done.get(p.partition) ?? -1n;
          const start = from < 0n ? BigInt(p.low) : from;
          if (BigInt(p.high) > start) total += BigInt(p.high) - start;
        }
        return Number(total);
      }),

    async take(max: number, waitMs: number): Promise<PulledMessage[]> {
      if (!Number.isInteger(max) || max < 0) throw new RangeError(`take: max must be a whole number ≥ 0, got ${max}`);
      if (!(waitMs >= 0)) throw new RangeError(`take: waitMs must be ≥ 0, got ${waitMs}`);
      if (closed) throw closedError();
      if (max === 0) return [];
      try {
        return await reader.take(max, waitMs);
      } catch (e) {
        throw sourceError(e, target, `reading dead letters from "${topic}" as group "${group}"`);
      }
    },

    async ack(messages: readonly PulledMessage[]) {
      const { parked, foreign } = reader.parkedOf(messages);
      if (foreign) {
        throw new KafkaSourceError(
          "invalid_receipt",
          `ack: message ${foreign.origin.position} was not taken from "${topic}" on this connection`,
        );
      }
      if (parked.length === 0) return;
      try {
        await reader.ack(parked);
      } catch (e) {
        throw sourceError(e, target, `committing ${parked.length} dead letters' offsets in "${topic}" for group "${group}"`);
      }
    },

    async publish(message: OutgoingMessage): Promise<PublishResult> {
      const out = outgoingRecord(message.origin, message.key);
      if (!out.ok) return failed(out.reason, false);
      if (closed) return failed(closedError().message, true);
      try {
        await publisher.send(out.record, message.body);
        return { outcome: "applied" };
      } catch (e) {
        return failed(sourceError(e, target, `publishing to "${out.record.topic}"`).message, isRetryable(e));
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([reader.close(), publisher.close(), adminUp ? admin.disconnect() : Promise.resolve()]);
    },
  };
}
