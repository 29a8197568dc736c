import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { freePort } from "./free-port";

// A private moto_server (Python's moto, an SQS-compatible server) for the SQS source's tests, bench and e2e spec:
// started on a free port, ready once it answers HTTP, killed by its pid. .ci/run makes sure the command exists;
// where it does not, the tests skip with the reason — except on CI, where they run and fail with it.

export const MOTO_SERVER_BIN = process.env.REDRIVE_TEST_MOTO_SERVER ?? "moto_server";

/** null when moto_server can be started, else why not. */
export function motoUnavailable(): string | null {
  const probe = spawnSync(MOTO_SERVER_BIN, ["--help"], { stdio: "ignore", timeout: 30_000 });
  if (probe.error) return `${MOTO_SERVER_BIN} cannot be run (${probe.error.message}): pip install 'moto[server]', as .ci/run does`;
  if (probe.status !== 0) return `${MOTO_SERVER_BIN} --help exited with ${probe.status}: pip install 'moto[server]', as .ci/run does`;
  return null;
}

/** Skip reason for a test file (null: run). On CI a missing moto_server is a failure, not a skip. */
export function motoSkip(): string | null {
  const why = motoUnavailable();
  if (why && !process.env.CI) {
    console.warn(`[moto] skipped: ${why}`);
    return why;
  }
  return null;
}

export interface MotoServer {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** the account moto puts every queue in */
  account: string;
  stop(): Promise<void>;
}

export async function startMotoServer(): Promise<MotoServer> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(MOTO_SERVER_BIN, ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "ignore", process.env.REDRIVE_TEST_VERBOSE ? "inherit" : "ignore"],
  });
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (e) => reject(new Error(`${MOTO_SERVER_BIN}: ${e.message}`)));
    child.once("exit", (code) => reject(new Error(`${MOTO_SERVER_BIN} on port ${port} exited with ${code}`)));
  });
  failed.catch(() => undefined);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answered = await Promise.race([
      fetch(`${endpoint}/moto-api/`).then(
        (r) => r.ok,
        () => false,
      ),
      failed,
    ]);
    if (answered) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${MOTO_SERVER_BIN} on port ${port} did not answer within 30 s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint,
    account: "123456789012",
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
