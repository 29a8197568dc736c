import type { Origin } from "../connector";
import { headerBytes, isDlqContextHeader, jsonToHeaders } from "./dlq-headers";

// What goes back to the original topic: the original key (so the default partitioner puts it where its key's
// records go), the record's own headers without the dead-letter context, and the idempotency key a consumer can
// deduplicate by. Pure.

export const IDEMPOTENCY_HEADER = "idempotency-key";

export interface KafkaOutgoing {
  topic: string;
  key: Buffer | null;
  /** header name → its values in order (kafkajs writes an array as the same name repeated) */
  headers: Record<string, Buffer[]>;
}

export type OutgoingResult = { ok: true; record: KafkaOutgoing } | { ok: false; reason: string };

export function outgoingRecord(origin: Origin, idempotencyKey: string): OutgoingResult {
  const d = origin.destination;
  if (d.type !== "kafka") return { ok: false, reason: `the message's destination is a ${d.type} destination, not a Kafka topic` };
  if (d.topic === "") {
    return {
      ok: false,
      reason:
        "the record names no original topic (neither kafka_dlt-original-topic nor __connect.errors.topic): nothing to publish back to",
    };
  }
  if (idempotencyKey === "") return { ok: false, reason: "the message has no idempotency key to publish it with" };
  const headers: Record<string, Buffer[]> = Object.create(null) as Record<string, Buffer[]>;
  for (const [name, value] of jsonToHeaders(origin.headers)) {
    if (isDlqContextHeader(name) || name === IDEMPOTENCY_HEADER) continue;
    (headers[name] ??= []).push(value);
  }
  headers[IDEMPOTENCY_HEADER] = [Buffer.from(idempotencyKey, "utf8")];
  const key = origin.properties.key;
  return { ok: true, record: { topic: d.topic, key: key === undefined || key === null ? null : headerBytes(key), headers } };
}
