// `npx tsx --import ./bin/server-side.mjs scripts/measure-pull-health.ts`: the production server (scripts/serve.ts,
// whose runtime answers Pull now requests) on a fresh database, a RabbitMQ source whose DLQ holds a 20 MB message
// and a spatial envelope with a 1,000,000-vertex polygon, and `GET /api/health` asked every 25 ms while
// `POST /api/sources/{name}/pull` takes them. Prints the slowest and the 99th percentile health answer (goal ≤ 200 ms)
// and the pull's answer. PORT (default 3111) picks the server's port.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import amqp from "amqplib";
import { createApiToken } from "../lib/auth/tokens";
import { createUser } from "../lib/auth/users";
import { addSource } from "../lib/sources/pull-now";
import { CreateSourceBody } from "../lib/sources/source-schemas";
import { benchDatabase } from "./bench-support";
import { ensureBuild } from "./source-stamp";

const PORT = Number(process.env.PORT ?? 3111);
const base = `http://127.0.0.1:${PORT}`;
const run = randomBytes(3).toString("hex");
const say = (m: string) => console.error(`[measure] ${m}`);
const ctx = () => ({ actor: { id: null, email: "measure", role: "system" }, now: new Date(), requestId: null });

/** A ring of `n` vertices around (5, 5), three decimals: ~14 MB of text, under the 16 MB record limit. */
function hugePolygonEnvelope(n: number): string {
  const ring: string[] = [];
  for (let i = 0; i < n - 1; i++) {
    const a = (2 * Math.PI * i) / (n - 1);
    ring.push(`[${(5 + Math.cos(a)).toFixed(3)},${(5 + Math.sin(a)).toFixed(3)}]`);
  }
  ring.push(ring[0]!);
  return (
    `{"kind":"spatial","source":"measure","idempotency_key":"huge-${run}","observed_at":1700000000,"replay_count":0,` +
    `"dead_letter_reason":"measure","feature":{"type":"Feature","id":"huge","properties":{},"geometry":{"type":"Polygon","coordinates":[[${ring.join(",")}]]}}}`
  );
}

const keys = {
  BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET ?? "measure-secret-0123456789abcdefghijklmnopqrstuvwxyz",
  REDRIVE_SECRET_KEY: process.env.REDRIVE_SECRET_KEY ?? "measure-sealing-key-0123456789abcdefghijklmnopqrstuv",
  REDRIVE_AUDIT_KEY: process.env.REDRIVE_AUDIT_KEY ?? "measure-audit-key-0123456789abcdefghijklmnopqrstuvwx",
  REDRIVE_OUTBOUND_ALLOW_PRIVATE: "127.0.0.1",
};
// This process seals the source's URL and MACs audit events with the server's keys: set before anything reads them.
Object.assign(process.env, keys);
const bench = await benchDatabase("redrive_measure_pull_health");
const env = {
  ...process.env,
  DATABASE_URL: bench.url,
  PORT: String(PORT),
  NODE_ENV: "production" as const,
  NEXT_TELEMETRY_DISABLED: "1",
  REDRIVE_DRAIN_DELAY_MS: "0",
  ...keys,
};
await ensureBuild({ env, log: say });
const server = spawn(process.execPath, ["--import", "./bin/server-side.mjs", "--import", "tsx", join("scripts", "serve.ts")], {
  env,
  stdio: ["ignore", "ignore", "inherit"],
});
const conn = await amqp.connect("amqp://guest:guest@127.0.0.1:5672");
const ch = await conn.createConfirmChannel();
const queues: string[] = [];
try {
  for (let deadline = Date.now() + 120_000; ;) {
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error("the server did not answer /api/health");
    await new Promise((r) => setTimeout(r, 500));
  }
  const { user } = await createUser(
    bench.db.pool,
    { email: "measure-admin@local", role: "admin", password: "measure-admin-pass-1" },
    ctx(),
  );
  const { token } = await createApiToken(bench.db.pool, { userId: user.id, name: "measure" }, ctx());

  // A server's first Pull now loads the route's and the pull's code (hundreds of ms of the event loop, once per
  // process): one on an empty queue first, so the figures are the heavy messages' own. MEASURE_COLD=1 skips it.
  if (process.env.MEASURE_COLD !== "1") {
    const queue = `measure.${run}.warm`;
    await ch.assertQueue(queue, { durable: false });
    queues.push(queue);
    const warm = CreateSourceBody.parse({
      name: `measure-warm-${run}`,
      type: "rabbitmq",
      url: "amqp://guest:guest@127.0.0.1:5672",
      kind: "afc",
      options: { queue },
    });
    const { name } = await addSource(bench.db.pool, warm, ctx());
    const res = await fetch(`${base}/api/sources/${name}/pull`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    say(`warm-up Pull now of an empty queue: ${res.status} ${await res.text()}`);
  }
  const cases: [string, "afc" | "spatial", Buffer][] = [
    ["a 20 MB message", "afc", Buffer.alloc(20 * 1024 * 1024, "x")],
    ["a 1,000,000-vertex polygon", "spatial", Buffer.from(hugePolygonEnvelope(1_000_000))],
  ];
  console.log("pull now of                    health answers  slowest   p99     pull answer");
  for (const [label, kind, body] of cases) {
    const queue = `measure.${run}.${kind}`;
    await ch.assertQueue(queue, { durable: false });
    queues.push(queue);
    ch.sendToQueue(queue, body, { messageId: `${kind}-${run}` });
    await ch.waitForConfirms();
    const source = CreateSourceBody.parse({
      name: `measure-${kind}-${run}`,
      type: "rabbitmq",
      url: "amqp://guest:guest@127.0.0.1:5672",
      kind,
      options: { queue },
    });
    const { name } = await addSource(bench.db.pool, source, ctx());
    // Warm: the health route and the ingest threads (a first answer compiles and connects).
    for (let i = 0; i < 5; i++) await fetch(`${base}/api/health`);
    const latencies: number[] = [];
    let pulling = true;
    const probe = (async () => {
      while (pulling) {
        const t0 = performance.now();
        await fetch(`${base}/api/health`).then((r) => r.arrayBuffer());
        latencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    const t0 = performance.now();
    const res = await fetch(`${base}/api/sources/${name}/pull`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    const answer = `${res.status} ${await res.text()} in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
    pulling = false;
    await probe;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]!;
    console.log(
      `${label.padEnd(30)} ${String(latencies.length).padStart(14)}  ${latencies.at(-1)!.toFixed(0).padStart(5)} ms ${p99.toFixed(0).padStart(5)} ms  ${answer}`,
    );
    const { rows } = await bench.db.pool.query<{ reason: string; failure_class: string }>(
      "SELECT left(reason, 140) AS reason, failure_class::text FROM dead_letter WHERE origin_source = $1",
      [name],
    );
    for (const r of rows) say(`${label}: stored ${r.failure_class}: ${r.reason}`);
  }
} finally {
  for (const q of queues) await ch.deleteQueue(q).catch(() => {});
  await conn.close().catch(() => {});
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  await bench.drop();
}
