// Pull and publish-back rates of the NATS source against the shared server. Not a test: run it by hand with
//   npx tsx --conditions=react-server tests/integration/sources/nats.bench.ts
// (react-server makes `server-only` the empty module, as under Next's server bundle).
import { RetentionPolicy } from "@nats-io/jetstream";
import type { SourceConnector } from "../../../lib/sources/connector";
import { createNatsConnector } from "../../../lib/sources/nats/connector";
import { addDyingConsumer, addStream, consumeBadly, NATS_URL, openAdmin, runNames, type Admin } from "./nats-fixtures";

const COUNT = 10_000;
const BODY = Buffer.alloc(256, 0x61);

async function deadLetters(admin: Admin, retention: RetentionPolicy, names: ReturnType<typeof runNames>) {
  const { stream, subject, source } = names.next();
  await addStream(admin, stream, subject, retention);
  await addDyingConsumer(admin, stream, "worker", 1);
  const c = await createNatsConnector({ name: source, url: NATS_URL, options: { stream, ackWaitMs: 30_000 } });
  await c.provision();
  for (let i = 0; i < COUNT; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, COUNT - i) }, (_, j) => admin.js.publish(`${subject}.m`, BODY, { msgID: `m-${i + j}` })),
    );
  }
  await consumeBadly(admin, stream, "worker", "never-ack", async () => (await c.waiting()) === COUNT, 120_000);
  return { stream, subject, c };
}

async function pullRate(c: SourceConnector, batch: number): Promise<number> {
  const t = performance.now();
  let taken = 0;
  while (taken < COUNT) {
    const got = await c.take(batch, 1000);
    if (got.length === 0) throw new Error(`only ${taken} of ${COUNT} dead letters came back`);
    await c.ack(got);
    taken += got.length;
  }
  return COUNT / ((performance.now() - t) / 1000);
}

async function publishRate(c: SourceConnector, subject: string, stream: string, inFlight: number, run: string): Promise<number> {
  const origin = {
    sourceType: "nats" as const,
    destination: { type: "nats" as const, subject: `${subject}.back`, stream },
    deathReason: "max_deliveries",
    deliveryCount: 1,
    messageId: "1",
    position: `${stream}:1`,
    publishedAt: null,
    diedAt: null,
    headers: { "X-Trace": "bench" },
    properties: {},
  };
  let next = 0;
  const t = performance.now();
  const lane = async () => {
    while (next < COUNT) {
      const i = next++;
      const r = await c.publish({ key: `${run}-${inFlight}-${i}`, body: BODY, origin });
      if (r.outcome !== "applied") throw new Error(`publish ${i}: ${JSON.stringify(r)}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return COUNT / ((performance.now() - t) / 1000);
}

const admin = await openAdmin();
const names = runNames();
const rows: string[] = [];
try {
  for (const retention of [RetentionPolicy.Limits, RetentionPolicy.Workqueue]) {
    for (const batch of [100, 1000]) {
      const { c } = await deadLetters(admin, retention, names);
      rows.push(`pull  ${retention.padEnd(9)} take(${batch}) + ack: ${Math.round(await pullRate(c, batch))} msg/s`);
      console.log(rows.at(-1));
      await c.close();
    }
  }
  const { stream, subject, source } = names.next();
  await addStream(admin, stream, subject, RetentionPolicy.Limits);
  const c = await createNatsConnector({ name: source, url: NATS_URL, options: { stream, ackWaitMs: 30_000 } });
  for (const inFlight of [1, 64]) {
    rows.push(
      `publish ${COUNT} confirmed, ${inFlight} in flight: ${Math.round(await publishRate(c, subject, stream, inFlight, names.run))} msg/s`,
    );
    console.log(rows.at(-1));
  }
  await c.close();
} finally {
  await names.cleanUp(admin);
  await admin.nc.close();
}
