import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { expect, test, type APIRequestContext } from "@playwright/test";
import pg from "pg";
import { startRoundRobinProxy, type RoundRobinProxy } from "../support/round-robin-proxy";
import { DEMO, uniqueSuffix } from "./fixtures";
import { e2eServerEnv } from "./server-env";

// Two Redrive servers on the spec's database behind a proxy that alternates between them (README "Running several
// servers"): the servers are peers whose shared state lives in PostgreSQL.

const ATTEMPTS = 10;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface Peer {
  port: number;
  child: ChildProcess;
}

async function startPeer(port: number): Promise<Peer> {
  const child = spawn(process.execPath, ["--import", "./bin/server-side.mjs", "--import", "tsx", "scripts/serve.ts"], {
    env: {
      ...process.env,
      ...e2eServerEnv(port),
      REDRIVE_TRUSTED_PROXIES: "127.0.0.1",
      REDRIVE_SIGNIN_ATTEMPTS_PER_MINUTE: String(ATTEMPTS),
      REDRIVE_DRAIN_DELAY_MS: "500",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/api/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { port, child };
    if (child.exitCode !== null) throw new Error(`the server on ${port} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`the server on ${port} was not ready within 90 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** SIGTERM, as a rolling restart sends it; resolves when the process has exited. */
async function stopPeer(peer: Peer): Promise<void> {
  if (peer.child.exitCode !== null) return;
  const exited = new Promise((r) => peer.child.once("exit", r));
  peer.child.kill("SIGTERM");
  await exited;
}

async function signInVia(request: APIRequestContext, proxy: string, role: keyof typeof DEMO, ip: string) {
  return request.post(`${proxy}/api/auth/sign-in/email`, {
    data: { email: DEMO[role].email, password: DEMO[role].password },
    headers: { origin: proxy, "x-forwarded-for": ip },
  });
}

test.describe("several servers on one database", () => {
  test.describe.configure({ mode: "serial", timeout: 240_000 });
  const peers: Peer[] = [];
  let proxy: RoundRobinProxy;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    const ports = [await freePort(), await freePort()];
    peers.push(...(await Promise.all(ports.map(startPeer))));
    proxy = await startRoundRobinProxy(ports);
  });

  test.afterAll(async () => {
    await proxy?.close();
    await Promise.all(peers.map(stopPeer));
  });

  test("the sign-in limit counts attempts on every server together", async ({ playwright }) => {
    const client = await playwright.request.newContext();
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const statuses: number[] = [];
    for (let i = 0; i <= ATTEMPTS; i++) {
      const res = await client.post(`${proxy.url}/api/auth/sign-in/email`, {
        data: { email: DEMO.analyst.email, password: "not-the-password" },
        headers: { origin: proxy.url, "x-forwarded-for": ip },
      });
      statuses.push(res.status());
    }
    // Alternating servers, each with a limit of ATTEMPTS: one count, so the attempt after ATTEMPTS is refused.
    expect(statuses).toEqual([...Array.from({ length: ATTEMPTS }, () => 401), 429]);
    expect([...proxy.served.values()].every((n) => n >= ATTEMPTS / 2 - 1)).toBe(true);
    await client.dispose();
  });

  test("a setting changed through one server is in force on the other at once", async ({ playwright }) => {
    const admin = await playwright.request.newContext();
    expect((await signInVia(admin, proxy.url, "admin", "198.51.100.201")).ok()).toBe(true);
    const [a, b] = peers.map((p) => `http://127.0.0.1:${p.port}`) as [string, string];
    try {
      expect((await admin.put(`${a}/api/settings/replay-approval`, { data: { limit: 7 }, headers: { origin: a } })).ok()).toBe(true);
      const started = Date.now();
      await expect
        .poll(async () => ((await (await admin.get(`${b}/api/settings/replay-approval`)).json()) as { limit: number }).limit, {
          timeout: 2_000,
        })
        .toBe(7);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await admin.put(`${a}/api/settings/replay-approval`, { data: { limit: 0 }, headers: { origin: a } });
      await admin.dispose();
    }
  });

  test("a rolling restart under steady ingest loses no acknowledged record", async ({ playwright }) => {
    // As an admin (who may ingest too), observed long ago: the records sort last in every newest-first list, so the
    // specs after this one (the producer's own records, the list's newest rows) do not meet them.
    const producer = await playwright.request.newContext();
    expect((await signInVia(producer, proxy.url, "admin", "198.51.100.202")).ok()).toBe(true);
    const run = `rolling-${uniqueSuffix()}`;
    const acknowledged: string[] = [];
    const refused: number[] = [];
    let sent = 0;
    let stop = false;
    const trickle = (async () => {
      while (!stop) {
        const key = `${run}-${sent++}`;
        const res = await producer
          .post(`${proxy.url}/api/dead-letters`, {
            data: {
              kind: "spatial",
              // a seeded source: specs after this one look for the demo's sources at the top of the list
              source: "field-survey",
              idempotency_key: key,
              observed_at: new Date(Date.UTC(2020, 0, 1, 0, 0, sent)).toISOString(),
              feature: { type: "Feature", id: key, geometry: { type: "Point", coordinates: [2.35, 48.85] }, properties: {} },
              dead_letter_reason: "rolling restart probe",
            },
            headers: { origin: proxy.url },
          })
          .catch(() => null);
        if (res?.ok()) acknowledged.push(key);
        else refused.push(res?.status() ?? 0);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    // Stop A, start A, stop B, start B — each waits for the restarted server to be ready.
    for (const i of [0, 1]) {
      const peer = peers[i]!;
      await stopPeer(peer);
      peers[i] = await startPeer(peer.port);
    }
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await trickle;
    await producer.dispose();

    const db = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
    await db.connect();
    const { rows } = await db.query<{ idempotency_key: string; n: number }>(
      `SELECT idempotency_key, count(*)::int AS n FROM dead_letter WHERE kind = 'spatial' AND idempotency_key LIKE $1 GROUP BY idempotency_key`,
      [`${run}-%`],
    );
    await db.end();
    const stored = new Map(rows.map((r) => [r.idempotency_key, r.n]));
    console.log(
      `[cluster] rolling restart: sent ${sent}, acknowledged ${acknowledged.length}, refused ${refused.length}, stored ${stored.size}`,
    );
    expect(acknowledged.length).toBeGreaterThan(20);
    for (const key of acknowledged) expect(stored.get(key), key).toBe(1);
    expect(refused).toEqual([]);
  });
});
