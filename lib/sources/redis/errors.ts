import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from "redis";
import type { RedisTarget } from "./options";

export type RedisSourceErrorCode =
  /** the URL cannot name a Redis server */
  | "invalid_url"
  /** no connection: refused, unknown host, timed out, lost */
  | "unreachable"
  /** the server refused the credentials, or the user may not run a command */
  | "auth_failed"
  /** the stream or group this source reads does not exist */
  | "not_found"
  /** the source still holds dead letters nobody acknowledged */
  | "pending"
  /** `ack` was given a message this connector did not hand out */
  | "invalid_receipt"
  /** the connector was closed */
  | "closed"
  /** any other refusal by the server, or a reply Redrive did not expect */
  | "broker";

/** What every method of the Redis connector rejects with; the message never holds the URL's password. */
export class RedisSourceError extends Error {
  override readonly name = "RedisSourceError";
  readonly code: RedisSourceErrorCode;

  constructor(code: RedisSourceErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

// Server replies that mean "not now" rather than "never": retrying the same command later can succeed.
const TRANSIENT_REPLIES = ["LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN", "OOM", "READONLY", "NOREPLICAS"];

const CONNECTION_ERRORS = [
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
];

/** Node's socket errors (ECONNREFUSED, ENOTFOUND, ECONNRESET, …) carry a string `code`. */
function isSystemError(e: unknown): boolean {
  return e instanceof Error && "code" in e && typeof e.code === "string" && /^E[A-Z]+$/.test(e.code);
}

function replyPrefix(e: ErrorReply): string {
  return e.message.split(" ", 1)[0] ?? "";
}

/** A reconnect strategy that gives up wraps the error that made it give up (WRONGPASS, ECONNREFUSED, …). */
function unwrap(e: unknown): unknown {
  return e instanceof ReconnectStrategyError ? e.socketError : e;
}

function classify(error: unknown): RedisSourceErrorCode {
  const e = unwrap(error);
  if (e instanceof RedisSourceError) return e.code;
  if (e instanceof ClientClosedError) return "closed";
  if (e instanceof ErrorReply) {
    const prefix = replyPrefix(e);
    if (prefix === "WRONGPASS" || prefix === "NOAUTH" || prefix === "NOPERM") return "auth_failed";
    if (prefix === "NOGROUP") return "not_found";
    return "broker";
  }
  if (CONNECTION_ERRORS.some((type) => e instanceof type) || isSystemError(e)) return "unreachable";
  return "broker";
}

/** Replaces every secret (the password, raw and decoded, and the whole URL) that a message might echo. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    if (s) out = out.split(s).join("***");
  }
  return out;
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

/** The error a connector method rejects with: what it was doing, where, and what Redis or the socket said. */
export function sourceError(e: unknown, target: RedisTarget, doing: string): RedisSourceError {
  if (e instanceof RedisSourceError) return e;
  const code = classify(e);
  const said = scrub(messageOf(e), target.secrets);
  const hint = code === "auth_failed" ? " (check the user name and password in the source URL)" : "";
  return new RedisSourceError(code, `${doing} on ${target.display} failed: ${said}${hint}`);
}

/** Whether publishing the same message again later may succeed (it is safe: the gate deduplicates). */
export function isRetryable(e: unknown): boolean {
  const code = classify(e);
  if (code === "unreachable" || code === "closed") return true;
  const cause = unwrap(e);
  return cause instanceof ErrorReply && TRANSIENT_REPLIES.includes(replyPrefix(cause));
}
