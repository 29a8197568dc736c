import type { OutgoingMessage, PulledMessage } from "../../../lib/sources/connector";
import { createRabbitmqConnector } from "../../../lib/sources/rabbitmq/connector";
import { Broker, RABBITMQ_URL } from "./rabbitmq-broker";

// Pull and publish-back rates of the RabbitMQ source against the local broker. Not a test: run it with
//   node --conditions=react-server --import tsx tests/integration/sources/rabbitmq.bench.ts
// Pull = take(batch) + ack until 10,000 dead letters are gone; publish = 10,000 confirmed publishes back to
// the original exchange, `inFlight` at a time (the replay engine calls publish concurrently).

const COUNT = 10_000;
const BODY = Buffer.from(
  JSON.stringify({ type: "Feature", geometry: { type: "Point", coordinates: [4.9, 52.37] }, properties: { pad: "x".repeat(200) } }),
);

async function main(): Promise<void> {
  const broker = await Broker.connect();
  try {
    for (const batch of [100, 500, 1000]) {
      const t = await broker.topology();
      await deadLetters(broker, t.exchange, t.work, t.dlq);
      for (const [kind, dlq] of [
        ["classic", t.dlq],
        ["quorum", t.quorumDlq],
      ] as const) {
        const rate = await pull(dlq, batch);
        console.log(`pull    ${kind.padEnd(7)} DLQ  take(${String(batch).padStart(4)}) + ack: ${rate.toFixed(0).padStart(6)} msg/s`);
      }
    }
    const t = await broker.topology();
    await deadLetters(broker, t.exchange, t.work, t.dlq);
    const c = await createRabbitmqConnector({ name: "bench", url: RABBITMQ_URL, options: { queue: t.dlq } });
    const [sample] = await c.take(1, 2000);
    if (!sample) throw new Error("no dead letter to publish back");
    for (const inFlight of [1, 64, 1000]) {
      const rate = await publishBack(c.publish, sample, inFlight);
      await broker.channel.purgeQueue(t.work);
      console.log(
        `publish back to ${t.exchange.split(".").slice(0, 3).join(".")}…, ${String(inFlight).padStart(4)} in flight: ${rate.toFixed(0).padStart(6)} msg/s`,
      );
    }
    await c.close();
  } finally {
    await broker.cleanup();
  }
}

/** 10,000 messages rejected by the work queue's consumer into both DLQs. */
async function deadLetters(broker: Broker, exchange: string, work: string, dlq: string): Promise<void> {
  for (let i = 0; i < COUNT; i += 1000) {
    await broker.publish(
      exchange,
      "orders.eu",
      Array.from({ length: 1000 }, () => BODY),
      (j) => ({
        messageId: `m-${i + j}`,
        contentType: "application/geo+json",
        headers: { tenant: "acme", seq: i + j },
      }),
    );
  }
  await broker.rejectAll(work, COUNT);
  await broker.waitForCount(dlq, COUNT, 60_000);
}

async function pull(dlq: string, batch: number): Promise<number> {
  const c = await createRabbitmqConnector({ name: "bench", url: RABBITMQ_URL, options: { queue: dlq } });
  let done = 0;
  const started = performance.now();
  while (done < COUNT) {
    const taken: PulledMessage[] = await c.take(batch, 1000);
    if (taken.length === 0) throw new Error(`the DLQ ran dry after ${done} messages`);
    await c.ack(taken);
    done += taken.length;
  }
  const rate = COUNT / ((performance.now() - started) / 1000);
  await c.close();
  return rate;
}

async function publishBack(
  publish: (m: OutgoingMessage) => Promise<{ outcome: string }>,
  sample: PulledMessage,
  inFlight: number,
): Promise<number> {
  let next = 0;
  let applied = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < COUNT) {
      const i = next++;
      const r = await publish({ key: `bench-${inFlight}-${i}`, body: sample.body, origin: sample.origin });
      if (r.outcome !== "applied") throw new Error(`publish ${i}: ${JSON.stringify(r)}`);
      applied += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  if (applied !== COUNT) throw new Error(`${applied} applied`);
  return COUNT / ((performance.now() - started) / 1000);
}

await main();
