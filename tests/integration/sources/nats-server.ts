import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A private nats-server for the tests that need what the shared one cannot give: credentials to refuse, and a
// server to kill and start again. Same binary and version as the shared server.

export const NATS_SERVER_BIN = "/usr/sbin/nats-server";
export const haveNatsServer = existsSync(NATS_SERVER_BIN);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export interface PrivateNatsServer {
  port: number;
  /** SIGKILL, as a crash would */
  kill(): Promise<void>;
  /** again on the same port and store */
  start(): Promise<void>;
  /** kill and remove the store */
  dispose(): Promise<void>;
}

export async function startPrivateNatsServer(
  opts: { auth?: { user: string; pass: string }; jetstream?: boolean } = {},
): Promise<PrivateNatsServer> {
  const { auth, jetstream = true } = opts;
  const port = await freePort();
  const store = mkdtempSync(join(tmpdir(), "redrive-nats-"));
  let child: ChildProcess | null = null;

  const start = async () => {
    const args = ["-a", "127.0.0.1", "-p", String(port), ...(jetstream ? ["-js", "-sd", store] : [])];
    if (auth) args.push("--user", auth.user, "--pass", auth.pass);
    const proc = spawn(NATS_SERVER_BIN, args, { stdio: "ignore" });
    child = proc;
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (proc.exitCode !== null) throw new Error(`nats-server on port ${port} exited with ${proc.exitCode}`);
      if (Date.now() > deadline) throw new Error(`nats-server on port ${port} did not start within 10 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGKILL");
    await exited;
  };

  await start();
  return {
    port,
    kill,
    start,
    dispose: async () => {
      await kill();
      rmSync(store, { recursive: true, force: true });
    },
  };
}
