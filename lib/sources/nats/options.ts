import { z } from "zod";

// What a NATS source is configured with: the stream whose dead letters it drains (optionally one consumer of it),
// and the URL of the server. Pure and client-safe, so the source form validates with the same rules.

// JetStream refuses names with whitespace, '.', '*', '>' (they would break the API subjects the name is put into)
// and path separators (the server names files after streams).
const JETSTREAM_NAME = /^[^\s.*>/\\\u0000-\u001f\u007f]+$/;
const NAME_RULE = "no spaces, '.', '*', '>', '/', '\\' or control characters";

function jetStreamName(what: string) {
  return z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(255, `${what} must be at most 255 characters`)
    .regex(JETSTREAM_NAME, `${what} must be a JetStream name: ${NAME_RULE}`);
}

export const natsOptionsSchema = z.strictObject({
  /** the JetStream stream whose consumers dead-letter messages */
  stream: jetStreamName("stream"),
  /** one durable consumer of that stream; omitted = every consumer of the stream */
  consumer: jetStreamName("consumer").optional(),
  /**
   * How long an advisory handed out by take() stays invisible before the server hands it out again. Longer than
   * the pull loop needs to store a batch; shorter means a crashed puller's batch comes back sooner.
   */
  ackWaitMs: z
    .number({ error: "ackWaitMs must be a number of milliseconds" })
    .int("ackWaitMs must be a whole number of milliseconds")
    .min(100, "ackWaitMs must be at least 100 ms")
    .max(12 * 60 * 60 * 1000, "ackWaitMs must be at most 12 hours")
    .default(30_000),
});

export type NatsOptions = z.output<typeof natsOptionsSchema>;
/** What a caller may pass (defaults not yet applied). */
export type NatsOptionsInput = z.input<typeof natsOptionsSchema>;

export type NatsAuth = { kind: "none" } | { kind: "user"; user: string; pass: string } | { kind: "token"; token: string };

/** A parsed server address: what the client is given, kept apart from the credentials. */
export interface NatsAddress {
  /** "host:port" — the only form the client sees, so its errors cannot echo a secret */
  server: string;
  tls: boolean;
  auth: NatsAuth;
  /** for messages: scheme, host and port, never the userinfo */
  display: string;
}

export type NatsUrlResult = { ok: true; address: NatsAddress } | { ok: false; message: string };

const DEFAULT_PORT = 4222;

/**
 * Validates a nats:// or tls:// URL. `user:pass@` is a user and password; a lone `token@` is a token (the NATS
 * clients' convention). Messages name what is wrong and never echo the userinfo.
 */
export function parseNatsUrl(url: string): NatsUrlResult {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return { ok: false, message: "the URL cannot be parsed: expected nats://[user:password@]host[:port] or tls://…" };
  }
  const scheme = u.protocol.replace(/:$/, "");
  if (scheme !== "nats" && scheme !== "tls") {
    return { ok: false, message: `the URL's scheme must be nats:// or tls://, not ${scheme}://` };
  }
  if (u.hostname === "") return { ok: false, message: "the URL names no host" };
  const port = u.port === "" ? DEFAULT_PORT : Number(u.port);
  const host = u.hostname;
  const display = `${scheme}://${host}:${port}`;
  if (u.pathname !== "" && u.pathname !== "/") return { ok: false, message: `the URL must not have a path (${display} is enough)` };
  if (u.search !== "" || u.hash !== "") return { ok: false, message: `the URL must not have a query or fragment (${display} is enough)` };

  let auth: NatsAuth = { kind: "none" };
  try {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    if (user !== "" && u.password !== "") auth = { kind: "user", user, pass };
    else if (user !== "") auth = { kind: "token", token: user };
    else if (u.password !== "") return { ok: false, message: `the URL for ${display} has a password but no user` };
  } catch {
    return { ok: false, message: `the URL's user or password for ${display} is not valid percent-encoding` };
  }
  return { ok: true, address: { server: `${host}:${port}`, tls: scheme === "tls", auth, display } };
}
