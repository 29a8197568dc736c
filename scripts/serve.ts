// The production web server: Next's request handler behind a plain Node HTTP server, so the client's address
// comes from the socket (lib/net/forwarded.ts) instead of whatever X-Forwarded-For a client sends, which
// `next start` would pass on to better-auth's sign-in limiter. `npm start` and the end-to-end tests run this.
import { createServer } from "node:http";
import next from "next";
import { getEnv } from "../lib/env";
import { parseTrustedProxies, sanitizeForwarding } from "../lib/net/forwarded";
import { configuredMaskRules } from "../lib/masking/config";
import { maskConsole } from "../lib/ops/masked-logs";

// The server's log lines leave with card numbers masked, whichever module (or library) wrote them.
maskConsole(configuredMaskRules());

const env = getEnv();
if (!env.BETTER_AUTH_SECRET) {
  console.error("BETTER_AUTH_SECRET is not set (at least 32 characters, e.g. $(openssl rand -base64 32)); not starting");
  process.exit(1);
}
const { list: trusted } = parseTrustedProxies(env.REDRIVE_TRUSTED_PROXIES);
const app = next({ dev: false, dir: process.cwd(), port: env.PORT });
const handle = app.getRequestHandler();
await app.prepare();

let warned = false;
const server = createServer((req, res) => {
  if (sanitizeForwarding(req.headers, req.socket.remoteAddress, trusted) && !warned) {
    // Once: behind a proxy nobody listed, every client counts as the proxy (one sign-in limit for all) and an
    // https proxy's X-Forwarded-Proto is ignored, which fails the sign-in's Origin check.
    warned = true;
    console.warn(
      `[redrive] ignored forwarding headers from ${req.socket.remoteAddress ?? "an unknown peer"}: behind a reverse proxy, set REDRIVE_TRUSTED_PROXIES to its address`,
    );
  }
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
if (process.send) process.on("disconnect", close);

function close(): void {
  server.close(() => process.exit(0));
  // Keep-alive connections can hold close() open: give in-flight requests a moment, then go.
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on("SIGTERM", close);
process.on("SIGINT", close);
