// Pull and publish-back rates of the Redis source against REDIS_URL (default the local Redis). Not a test:
//   node --conditions=react-server --import tsx tests/integration/sources/redis.bench.ts
import type { SourceConnector } from "../../../lib/sources/connector";
import { createRedisConnector } from "../../../lib/sources/redis/connector";
import { redisOptionsSchema, type RedisOptions } from "../../../lib/sources/redis/options";
import { spatialEnvelope } from "../../replay/fixtures";
import { connectAdmin, deleteKeys, failDeliveries, REDIS_URL, runPrefix, sleep, type Admin } from "./redis-helpers";

const N = 10_000;
/** this machine is shared and noisy: each figure is the median of REPEAT runs, with the range */
const REPEAT = Number(process.env.REPEAT ?? 3);
const prefix = runPrefix();
let run = 0;

async function measure(label: string, once: () => Promise<number>): Promise<string> {
  const rates: number[] = [];
  for (let i = 0; i < REPEAT; i++) rates.push(await once());
  rates.sort((a, b) => a - b);
  const f = (x: number | undefined) => (x ?? 0).toFixed(0);
  return `${label}: ${f(rates[Math.floor(rates.length / 2)])} msg/s (${f(rates[0])}–${f(rates.at(-1))})`;
}

function body(i: number): Buffer {
  return Buffer.from(spatialEnvelope({ key: `bench-${i}`, observedAt: i, featureId: `parcel-${i % 400}` }));
}

async function addAll(admin: Admin, stream: string, fields: (i: number) => Record<string, string | Buffer>) {
  for (let i = 0; i < N; i += 1000) {
    const multi = admin.multi();
    for (let j = i; j < Math.min(N, i + 1000); j++) multi.xAdd(stream, "*", fields(j));
    await multi.exec();
  }
}

async function open(options: Partial<RedisOptions> & { stream: string; group: string }): Promise<SourceConnector> {
  return createRedisConnector({ name: "bench", url: REDIS_URL, options: redisOptionsSchema.parse(options) });
}

async function drain(c: SourceConnector, batch: number): Promise<number> {
  const t = performance.now();
  let taken = 0;
  while (taken < N) {
    const got = await c.take(batch, 1000);
    if (got.length === 0) throw new Error(`only ${taken} of ${N} taken`);
    await c.ack(got);
    taken += got.length;
  }
  return (N / (performance.now() - t)) * 1000;
}

async function pullClaim(admin: Admin, batch: number): Promise<number> {
  const stream = `${prefix}:claim:${++run}`;
  await admin.xGroupCreate(stream, "workers", "$", { MKSTREAM: true });
  await addAll(admin, stream, (i) => ({ body: body(i), trace_id: `t-${i}` }));
  await failDeliveries(admin, stream, "workers", "worker-1", 2);
  await sleep(50);
  const c = await open({ stream, group: "workers", minIdleMs: 10, maxDeliveries: 2 });
  try {
    return await drain(c, batch);
  } finally {
    await c.close();
  }
}

async function pullDlq(admin: Admin, batch: number): Promise<number> {
  const stream = `${prefix}:app:${++run}`;
  const dlq = `${prefix}:dlq:${run}`;
  await addAll(admin, dlq, (i) => ({ body: body(i), source_stream: stream, error: "timeout" }));
  const c = await open({ stream, group: "workers", dlqStream: dlq });
  try {
    await c.provision();
    return await drain(c, batch);
  } finally {
    await c.close();
  }
}

async function publishBack(admin: Admin, inFlight: number): Promise<number> {
  const stream = `${prefix}:back:${++run}`;
  await admin.xGroupCreate(stream, "workers", "$", { MKSTREAM: true });
  const c = await open({ stream, group: "workers", gatePrefix: `${prefix}:gate:${run}:` });
  const origin = {
    sourceType: "redis",
    destination: { type: "redis", stream, field: "body" },
    deathReason: "max_deliveries",
    deliveryCount: 3,
    messageId: "1-0",
    position: `${stream}:1-0`,
    publishedAt: null,
    diedAt: null,
    headers: { trace_id: "t-1" },
    properties: {},
  } as const;
  try {
    const t = performance.now();
    let next = 0;
    const lane = async () => {
      while (next < N) {
        const i = next++;
        const r = await c.publish({ key: `evt-${i}`, body: body(i), origin });
        if (r.outcome !== "applied") throw new Error(`publish ${i}: ${JSON.stringify(r)}`);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
    const rate = (N / (performance.now() - t)) * 1000;
    if ((await admin.xLen(stream)) !== N) throw new Error("stream length differs from publishes");
    return rate;
  } finally {
    await c.close();
  }
}

const admin = await connectAdmin();
const rows: string[] = [];
try {
  for (const batch of [100, 500, 1000])
    rows.push(await measure(`pull, claim mode,     take(${batch}) + ack`, () => pullClaim(admin, batch)));
  for (const batch of [100, 500, 1000]) rows.push(await measure(`pull, dlqStream mode, take(${batch}) + ack`, () => pullDlq(admin, batch)));
  for (const inFlight of [1, 16, 64]) rows.push(await measure(`publish back, ${inFlight} in flight`, () => publishBack(admin, inFlight)));
} finally {
  await deleteKeys(admin, prefix);
  admin.destroy();
}
console.log(`${N} messages of ~${body(0).length} bytes each, Redis ${REDIS_URL}, median of ${REPEAT} runs (min–max)`);
for (const r of rows) console.log(r);
