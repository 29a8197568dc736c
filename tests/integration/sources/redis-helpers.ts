import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { connect as connectTcp, createServer } from "node:net";
import { createClient, RESP_TYPES } from "redis";

// Set-up for the Redis source tests: a plain client playing the application (producer, failing worker, plain
// consumer), unique key names per run, and a throw-away redis-server for the tests that stop the broker.

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export type Admin = Awaited<ReturnType<typeof connectAdmin>>;

export async function connectAdmin(url = REDIS_URL) {
  const client = createClient({ url, socket: { reconnectStrategy: false } });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/** Raw bytes and flat field lists, to compare what is on the wire. */
export function raw(admin: Admin) {
  return admin.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.MAP]: Array });
}

/** A prefix unique to this run, so parallel runs and leftovers of a killed run never meet. */
export function runPrefix(): string {
  return `redrive-it:${randomBytes(4).toString("hex")}`;
}

export async function deleteKeys(admin: Admin, prefix: string): Promise<void> {
  for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
    if (keys.length) await admin.del(keys);
  }
}

/**
 * A worker of `group` that reads every new entry and never acknowledges: `times` deliveries each (the first read
 * with ">", the rest re-reading its own pending entries, which adds one to their delivery count each time).
 */
export async function failDeliveries(admin: Admin, stream: string, group: string, worker: string, times: number): Promise<string[]> {
  const first = await admin.xReadGroup(group, worker, { key: stream, id: ">" }, { COUNT: 10_000 });
  const ids = (first?.[0]?.messages ?? []).map((m: { id: string }) => m.id);
  for (let i = 1; i < times; i++) await admin.xReadGroup(group, worker, { key: stream, id: "0" }, { COUNT: 10_000 });
  return ids;
}

export async function pendingOf(admin: Admin, stream: string, group: string) {
  return admin.xPendingRange(stream, group, "-", "+", 10_000);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const srv = createServer().listen(0, "127.0.0.1");
  await once(srv, "listening");
  const address = srv.address();
  srv.close();
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

/** A redis-server of this test's own (no persistence), to stop and start under a connector. */
export async function startScratchRedis(extraArgs: string[] = []) {
  const port = await freePort();
  let proc: ChildProcess | null = null;
  const start = async () => {
    proc = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArgs], {
      stdio: "ignore",
    });
    // Listening is enough: a server with requirepass refuses a client without a password.
    for (let i = 0; i < 100; i++) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = connectTcp(port, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve(true);
        });
        socket.once("error", () => resolve(false));
      });
      if (up) return;
      await sleep(50);
    }
    throw new Error(`redis-server on port ${port} did not start`);
  };
  const stop = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    p.kill("SIGKILL");
    await once(p, "exit");
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, start, stop };
}
