// `npm start`: one command from a fresh clone to a running dashboard. Resolves the database (DATABASE_URL or
// the embedded PostgreSQL), applies migrations, seeds demo data into an empty database, builds the app when
// there is no production build of the current sources (scripts/source-stamp.ts), then serves it and runs one
// replay worker in this process.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { getEnv } from "../lib/env";
import { resolveAuditSecret } from "../lib/audit/configured-keys";
import { resolveAuthSecret } from "../lib/auth/secret";
import { resolveConfigSecret } from "../lib/secrets/config-key";
import { productionSecretsRefusal } from "../lib/secrets/production-secrets";
import { bootstrap } from "../lib/startup/bootstrap";
import { ensureBuild } from "./source-stamp";
import { refreshRouteModules } from "./route-modules";

const dev = process.argv.includes("--dev");
const env = getEnv();
const started = Date.now();
const say = (msg: string) => console.log(`[redrive] ${msg}`);

// A production server without its secrets would start, look healthy and refuse every sign-in, audited change or
// source saved: refuse to start instead, before seeding anything.
const missingSecrets = productionSecretsRefusal(env);
if (missingSecrets) {
  console.error(`[redrive] ${missingSecrets}; not starting`);
  process.exit(1);
}

/** Whether PORT is free, asked before the database, the seed and the build rather than after them. */
async function portFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((ok) => {
    probe.once("error", () => ok(false));
    probe.listen(port, () => probe.close(() => ok(true)));
  });
}
if (!(await portFree(env.PORT))) {
  console.error(`[redrive] port ${env.PORT} is in use (another Redrive, or another program): stop it or set PORT; not starting`);
  process.exit(1);
}

// Set once the servers run: the embedded database stopping by itself (killed, crashed) stops everything with
// a message, rather than a dashboard answering 503 for ever with nothing restarting it.
let databaseGone: ((why: string) => void) | null = null;
let boot: Awaited<ReturnType<typeof bootstrap>>;
try {
  boot = await bootstrap({ log: say, seedIfEmpty: true, onDatabaseExit: (why) => databaseGone?.(why) });
} catch (err) {
  console.error(`[redrive] ${err instanceof Error ? err.message : String(err)}; not starting`);
  process.exit(1);
}
const { db, stop } = boot;

const nextBin = join(process.cwd(), "node_modules", "next", "dist", "bin", "next");
// One machine, no load balancer to take the server out of rotation: on stop it closes without a drain delay.
const childEnv: NodeJS.ProcessEnv = { REDRIVE_DRAIN_DELAY_MS: "0", ...process.env, DATABASE_URL: db.url, NEXT_TELEMETRY_DISABLED: "1" };
// The server always runs a production build. Unless the operator said NODE_ENV=production themselves, this
// is the quick start: demo accounts work and a session secret is generated into REDRIVE_DATA_DIR. A real
// deployment sets NODE_ENV=production and BETTER_AUTH_SECRET, and the demo passwords stop working.
if (process.env.NODE_ENV !== "production") {
  childEnv.REDRIVE_DEMO ??= "1";
  childEnv.BETTER_AUTH_SECRET ??= resolveAuthSecret({ ...env, NODE_ENV: "development" });
  // The server runs as production: hand it the audit key this launcher's seed and worker MAC with.
  childEnv.REDRIVE_AUDIT_KEY ??= resolveAuditSecret({ ...env, NODE_ENV: "development" });
  // And the key sealing source and sink secrets, which the worker and the CLI read from the same file.
  childEnv.REDRIVE_SECRET_KEY ??= resolveConfigSecret({ ...env, NODE_ENV: "development" });
}

// `next dev` compiles what it is asked for: the OpenAPI document's list of route files is kept current here.
if (dev && refreshRouteModules()) say("the route files changed: rewrote app/api/route-modules.generated.ts");

if (!dev) {
  try {
    await ensureBuild({ env: childEnv, log: say });
  } catch (err) {
    console.error(`[redrive] ${(err as Error).message}`);
    await stop();
    process.exit(1);
  }
}

// Production: scripts/serve.ts (Next's handler behind our HTTP server, which takes the client's address from
// the socket); development: `next dev`.
const serverArgs = dev
  ? [nextBin, "dev", "-p", String(env.PORT)]
  : ["--import", "./bin/server-side.mjs", "--import", "tsx", join("scripts", "serve.ts")];
// With an IPC channel: the server exits when this process goes away, even by SIGKILL (scripts/serve.ts), instead of
// holding the port for the next start.
const server = spawn(process.execPath, serverArgs, {
  stdio: ["ignore", "pipe", "inherit", "ipc"],
  env: { ...childEnv, PORT: String(env.PORT), NODE_ENV: dev ? "development" : "production" },
});
server.stdout?.on("data", (chunk: Buffer) => {
  process.stdout.write(chunk);
  if (/Ready in|ready started|✓ Ready/i.test(chunk.toString())) {
    say(`dashboard at http://localhost:${env.PORT} (start-up took ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
});

// The runtime (lib/runtime: one replay worker, the sources' pullers, Pull now requests, the housekeeping loop:
// retention, alerts) runs in this process by default; more run anywhere with `npx redrive worker` against the
// same database.
const background = new AbortController();
const worker =
  env.REDRIVE_WORKER === "1"
    ? (await import("../lib/runtime/runtime")).startRuntime({
        db,
        signal: background.signal,
        log: (m) => say(`worker: ${m}`),
        maintenance: { retentionDays: env.REDRIVE_RETENTION_DAYS, webhookUrl: env.REDRIVE_ALERT_WEBHOOK_URL ?? null },
      })
    : null;
if (worker) say(`replay worker ${worker.id} running in-process (REDRIVE_WORKER=0 to disable)`);

let stopping = false;
let stoppingSince = 0;
async function shutdown(signal: NodeJS.Signals | null, code = 0, why?: string) {
  if (stopping) {
    // A second Ctrl-C: the operator will not wait. What the worker holds is returned by the sweeper (its lease).
    // One Ctrl-C can arrive twice (from the terminal to the whole group, and forwarded by npm): a repeat within
    // a second is that same press.
    if (signal && Date.now() - stoppingSince > 1000) {
      say(`${signal} again: exiting now`);
      process.exit(130);
    }
    return;
  }
  stopping = true;
  stoppingSince = Date.now();
  say(why ?? `${signal}: stopping (the worker finishes the pages it holds; press Ctrl-C again to exit at once)`);
  background.abort();
  if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM");
  await Promise.all([
    server.exitCode === null && server.signalCode === null ? new Promise((r) => server.once("exit", r)) : null,
    worker?.stop(),
  ]);
  await stop();
  process.exit(code);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
// A closed terminal: as SIGTERM (the embedded server, in a process group of its own, would otherwise run on).
process.on("SIGHUP", () => void shutdown("SIGHUP"));
databaseGone = (why) => void shutdown(null, 1, `${why}: stopping; start Redrive again (the next start recovers the data)`);
server.on("exit", async (code, signal) => {
  if (stopping) return;
  say(`server exited (${signal ?? `status ${code}`})`);
  background.abort();
  await worker?.stop();
  await stop();
  process.exit(code ?? 1);
});
