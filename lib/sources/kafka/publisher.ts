import "server-only";
import { Partitioners, type Kafka, type Message, type Producer } from "kafkajs";
import type { KafkaOutgoing } from "./outgoing";

// Publishing back: an idempotent producer (acks=all, one request in flight per broker, so the broker's sequence
// numbers drop a retried duplicate and keep order), with Java's default partitioner (murmur2 of the key), so a
// record goes to the partition its key's records go to. The origin sink publishes many records at once; those
// asked for in the same turn of the event loop go as one request, which the broker acknowledges as a whole.

interface Pending {
  record: KafkaOutgoing;
  value: Buffer;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class Publisher {
  private producer: Producer | null = null;
  private connecting: Promise<Producer> | null = null;
  private queue: Pending[] = [];

  constructor(private readonly kafka: Kafka) {}

  private connected(): Promise<Producer> {
    this.connecting ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      try {
        await producer.connect();
      } catch (e) {
        this.connecting = null;
        throw e;
      }
      this.producer = producer;
      return producer;
    })();
    return this.connecting;
  }

  /** Resolves once every in-sync replica has the record (acks=all). */
  send(record: KafkaOutgoing, value: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => void this.flush());
      this.queue.push({ record, value, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    const byTopic = new Map<string, Message[]>();
    for (const { record, value } of batch) {
      const messages = byTopic.get(record.topic) ?? [];
      messages.push({ key: record.key, value, headers: record.headers });
      byTopic.set(record.topic, messages);
    }
    try {
      const producer = await this.connected();
      await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
      for (const p of batch) p.resolve();
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }

  async close(): Promise<void> {
    if (this.connecting) await this.connecting.catch(() => undefined);
    await this.producer?.disconnect();
  }
}
