import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../../lib/db/client";
import type { PulledMessage, SourceConnector } from "../../../lib/sources/connector";
import { SOURCE_TYPES, type SourceType } from "../../../lib/sources/registry";
import { toPulled as kafkaPulled } from "../../../lib/sources/kafka/origin";
import { deadLetterOrigin } from "../../../lib/sources/nats/origin";
import { pullSource } from "../../../lib/sources/pull-source";
import { toOrigin as rabbitOrigin } from "../../../lib/sources/rabbitmq/origin";
import { toPulled as redisPulled } from "../../../lib/sources/redis/origin";
import { toPulled as sqsPulled } from "../../../lib/sources/sqs/message";
import { spatialEnvelope } from "../../replay/fixtures";
import { setTestAuthEnv, TEST_CTX } from "../auth-helpers";
import { testDb } from "../helpers";

// Every source type: a message that arrives at a position the source stored before, with another body, is
// another dead letter (a re-created stream or topic, a reused producer id). It is stored — a new record, or a new
// failure of the record its key names — never acknowledged away as "already stored"; the same position with the
// same body (a redelivery after a crash) still changes nothing. Each type's own translator makes the message from
// the same broker identifiers both times, so its position is what the type would record.

setTestAuthEnv();

/** One dead letter as each type's adapter reads it, always from the same place on the broker. */
const AT_ONE_PLACE: Record<SourceType, (body: Buffer) => PulledMessage> = {
  rabbitmq: (body) => ({
    body,
    receipt: null,
    origin: rabbitOrigin("q.dlq", {
      content: body,
      properties: {
        messageId: "m-1",
        headers: {
          "x-death": [
            {
              count: 1,
              reason: "rejected",
              queue: "q.work",
              time: { "!": "timestamp", value: 1796137553 },
              exchange: "x",
              "routing-keys": ["k"],
            },
          ],
          "x-first-death-exchange": "x",
          "x-first-death-queue": "q.work",
          "x-first-death-reason": "rejected",
        },
      },
    }),
  }),
  nats: (body) => ({
    body,
    receipt: null,
    origin: deadLetterOrigin(
      {
        type: "io.nats.jetstream.advisory.v1.max_deliver",
        id: "adv-1",
        timestamp: "2026-12-06T10:00:01Z",
        stream: "ORDERS",
        consumer: "worker",
        stream_seq: 1,
        deliveries: 2,
      },
      { created: "2026-12-06T10:00:00Z" },
      { subject: "orders.created", seq: 1, timestamp: "2026-12-06T10:00:00.5Z", headers: [["Nats-Msg-Id", ["m-1"]]] },
    ),
  }),
  redis: (body) => ({
    receipt: null,
    ...redisPulled(
      { id: "1796137553000-0", fields: [Buffer.from("body"), body] },
      { mode: "dead_letter_stream", dlqStream: "orders:dlq", stream: "orders", field: "body" },
    ),
  }),
  kafka: (body) => ({
    receipt: null,
    ...kafkaPulled({ topic: "orders-dlt", partition: 0, offset: "0", key: null, value: body, timestamp: "1796137553000", headers: [] }),
  }),
  sqs: (body) => ({
    receipt: null,
    ...sqsPulled(
      { MessageId: "0b6c5a52-1", Body: body.toString("utf8"), Attributes: {} },
      { queueName: "orders-dlq", sourceQueueUrl: null },
    ),
  }),
};

/** Hands out what it is given, once; acknowledging does nothing (the pull acknowledges after its commit). */
function connectorOf(messages: PulledMessage[]): SourceConnector {
  let queue = [...messages];
  return {
    provision: async () => undefined,
    deprovision: async () => undefined,
    waiting: async () => queue.length,
    take: async (max) => {
      const out = queue.slice(0, max);
      queue = queue.slice(max);
      return out;
    },
    ack: async () => undefined,
    publish: async () => ({ outcome: "failed", error: "not here", retryable: false }),
    close: async () => undefined,
  };
}

let db: Db;

beforeAll(async () => {
  db = await testDb();
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

describe.each(SOURCE_TYPES)("a %s source", (type) => {
  const source = { name: `same-place-${type}`, type, kind: "spatial" as const };
  const envelope = (key: string, observedAt: number) => Buffer.from(spatialEnvelope({ key, observedAt, featureId: key }));
  const pull = (m: PulledMessage) =>
    pullSource(db.pool, source, connectorOf([m]), { actor: TEST_CTX().actor, requestId: null, clock: () => new Date() });
  const records = async () =>
    (
      await db.pool.query<{ key: string; failures: number }>(
        "SELECT idempotency_key AS key, failure_count AS failures FROM dead_letter WHERE origin_source = $1 ORDER BY id",
        [source.name],
      )
    ).rows;

  it("stores another body at a known position, and counts nothing for the same body again", async () => {
    const first = AT_ONE_PLACE[type](envelope(`${type}-a`, 100));
    expect(await pull(first)).toMatchObject({ pulled: 1, created: 1 });

    // A redelivery after a crash: the same position, the same body.
    expect(await pull(AT_ONE_PLACE[type](envelope(`${type}-a`, 100)))).toMatchObject({ pulled: 1, created: 0 });
    expect(await records()).toEqual([{ key: `${type}-a`, failures: 1 }]);

    // Another dead letter where the first one sat: a new record.
    const other = AT_ONE_PLACE[type](envelope(`${type}-b`, 200));
    expect(other.origin.position).toBe(first.origin.position);
    expect(await pull(other)).toMatchObject({ pulled: 1, created: 1 });

    // Another body with the first one's key: a new failure of that record.
    expect(await pull(AT_ONE_PLACE[type](envelope(`${type}-a`, 300)))).toMatchObject({ pulled: 1, created: 0 });
    expect(await records()).toEqual([
      { key: `${type}-a`, failures: 2 },
      { key: `${type}-b`, failures: 1 },
    ]);
    const { rows } = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM source_message WHERE source = $1 AND position = $2",
      [source.name, first.origin.position],
    );
    expect(rows[0]?.n).toBe(3);
  });
});
