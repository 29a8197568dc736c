// The production web server: Next's request handler behind a plain Node HTTP server, so the client's address
// comes from the socket (lib/net/forwarded.ts) instead of whatever X-Forwarded-For a client sends, which
// `next start` would pass on to better-auth's sign-in limiter. `npm start` and the end-to-end tests run this, and
// `npm run serve` runs it alone: one of N servers on one PostgreSQL (README "Running several servers"). It never
// builds and never migrates: it refuses to start without a build of the current sources, and answers not ready
// (GET /api/health/ready) until the database has this code's migrations.
import { createServer } from "node:http";
import next from "next";
import { getEnv } from "../lib/env";
import { productionSecretsRefusal } from "../lib/secrets/production-secrets";
import { parseTrustedProxies, sanitizeForwarding } from "../lib/net/forwarded";
import { configuredMaskRules } from "../lib/masking/config";
import { maskConsole } from "../lib/ops/masked-logs";
import { startDraining } from "../lib/startup/lifecycle";
import { getDb } from "../lib/db/client";
import { startRuntime } from "../lib/runtime/runtime";
import { buildState } from "./source-stamp";

// The server's log lines leave with card numbers masked, whichever module (or library) wrote them.
maskConsole(configuredMaskRules());

const env = getEnv();
const refuse = (why: string): never => {
  console.error(`[redrive] ${why}; not starting`);
  process.exit(1);
};
// This server always runs as production: it generates no secret, and without one it would answer ready and fail
// every sign-in, audited change or source saved.
const missingSecrets = productionSecretsRefusal({ ...env, NODE_ENV: "production" });
if (missingSecrets) refuse(missingSecrets);
if (!process.env.DATABASE_URL)
  refuse("DATABASE_URL is not set (`npm start` starts an embedded PostgreSQL; a server of several needs the shared one)");
const build = buildState();
if (build === "missing") refuse("there is no production build: run `npm run build` first");
if (build === "stale") refuse("the production build is older than the code: run `npm run build` again");

const { list: trusted } = parseTrustedProxies(env.REDRIVE_TRUSTED_PROXIES);
const app = next({ dev: false, dir: process.cwd(), port: env.PORT });
const handle = app.getRequestHandler();
await app.prepare();

// Pull now requests written on any server are answered by every server's runtime too, so one is answered where no
// worker runs; the pull's parsing and GEOS run on the ingest threads, off this event loop. Replay lanes, the
// continuous drain and housekeeping are the workers' (`redrive worker`, or `npm start`'s launcher).
const runtime = startRuntime({
  db: getDb(),
  log: (m) => console.log(`[redrive] ${m}`),
  replay: false,
  pullers: false,
  maintenance: false,
});

let warned = false;
let draining = false;
const server = createServer((req, res) => {
  if (sanitizeForwarding(req.headers, req.socket.remoteAddress, trusted) && !warned) {
    // Once: behind a proxy nobody listed, every client counts as the proxy (one sign-in limit for all) and an
    // https proxy's X-Forwarded-Proto is ignored, which fails the sign-in's Origin check.
    warned = true;
    console.warn(
      `[redrive] ignored forwarding headers from ${req.socket.remoteAddress ?? "an unknown peer"}: behind a reverse proxy, set REDRIVE_TRUSTED_PROXIES to its address`,
    );
  }
  // While stopping, each answer closes its connection: a keep-alive client reconnects, through the balancer, elsewhere.
  if (draining) res.setHeader("Connection", "close");
  void handle(req, res);
});
server.on("error", (err: NodeJS.ErrnoException) => {
  // Without this, Next's uncaughtException handler kept a server that never listened alive for ever.
  console.error(
    err.code === "EADDRINUSE" ? `[redrive] port ${env.PORT} is in use: stop what holds it or set PORT` : `[redrive] server: ${err.message}`,
  );
  process.exit(1);
});
server.listen(env.PORT, () => console.log(`✓ Ready on http://localhost:${env.PORT}`));

// Started by scripts/start.ts with an IPC channel: when the launcher is gone (even SIGKILLed), so is this server.
if (process.send) process.on("disconnect", () => close(0));

/**
 * Readiness fails first (for `drainDelayMs` the server still serves whatever the balancer sends), then the server
 * stops accepting connections, requests in flight get `REDRIVE_SHUTDOWN_TIMEOUT_MS` to finish, and the process exits.
 */
function close(drainDelayMs: number): void {
  if (draining) return;
  draining = true;
  startDraining();
  void runtime.stop();
  console.log(
    `[redrive] stopping: not ready now; closing in ${drainDelayMs} ms, in-flight requests then get ${env.REDRIVE_SHUTDOWN_TIMEOUT_MS} ms`,
  );
  setTimeout(() => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => {
      console.warn("[redrive] requests still in flight at the shutdown timeout: closing them");
      server.closeAllConnections();
      process.exit(0);
    }, env.REDRIVE_SHUTDOWN_TIMEOUT_MS).unref();
  }, drainDelayMs);
}
process.on("SIGTERM", () => close(env.REDRIVE_DRAIN_DELAY_MS));
// Ctrl-C in a terminal: nobody balances this server's traffic, so no delay.
process.on("SIGINT", () => close(0));
