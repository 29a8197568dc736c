import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import {
  AuthorizationError,
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  PermissionViolationError,
  RequestError,
  TimeoutError,
  UserAuthenticationExpiredError,
} from "@nats-io/transport-node";
import { NatsSourceError } from "./errors";

// Turns whatever the NATS client threw into a NatsSourceError that says what was being done, where, and what
// happened. `where` is the display address (scheme://host:port): the client itself only ever saw host:port and
// the credentials as separate options, so none of the texts used here can contain the password.

export function isNotFound(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound)
  );
}

/**
 * The message is not there. A get answers 10037; a delete answers 10043 ("sequence N not found") past the end of
 * the stream, or 10057 — the code for any failed delete — with "no message found" for one already deleted.
 */
export function isNoMessage(err: unknown): boolean {
  if (!(err instanceof JetStreamApiError)) return false;
  return (
    err.code === JetStreamApiCodes.NoMessageFound || err.code === 10043 || (err.code === 10057 && /no message found/i.test(err.message))
  );
}

/** Nothing subscribes to the request's subject (no stream for a publish, JetStream down for an API call). */
export function isNoResponders(err: unknown): boolean {
  return err instanceof RequestError && err.isNoResponders();
}

function systemCode(err: Error): string | undefined {
  const own = (err as Error & { code?: unknown }).code;
  if (typeof own === "string") return own;
  return err.cause instanceof Error ? systemCode(err.cause) : undefined;
}

const SYSTEM_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused (is the server running?)",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved right now",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host is unreachable",
  ECONNRESET: "the connection was reset",
};

export function natsFailure(err: unknown, doing: string, where: string): NatsSourceError {
  if (err instanceof NatsSourceError) return err;
  if (!(err instanceof Error)) return new NatsSourceError("broker_error", `${doing} at ${where} failed: ${String(err)}`);
  const say = (text: string) => `${doing} at ${where}: ${text}`;

  if (err instanceof AuthorizationError || err instanceof UserAuthenticationExpiredError) {
    return new NatsSourceError("auth_failed", say(`the server refused the credentials (${err.message})`), { cause: err });
  }
  if (err instanceof PermissionViolationError) {
    return new NatsSourceError("auth_failed", say(`the user lacks a permission (${err.message})`), { cause: err });
  }
  if (err instanceof TimeoutError) {
    return new NatsSourceError("timeout", say("the server did not answer in time (down, restarting or overloaded)"), { cause: err });
  }
  if (err instanceof ClosedConnectionError || err instanceof DrainingConnectionError) {
    return new NatsSourceError("closed", say("the connection is closed"), { cause: err });
  }
  // The package's entry point does not export the JetStreamNotEnabled class, only its name tells it apart.
  if (err.name === "JetStreamNotEnabled" && !isNoResponders(err.cause)) {
    return new NatsSourceError("connect_failed", say("JetStream is not enabled for this account or server"), { cause: err });
  }
  if (isNoResponders(err) || isNoResponders(err.cause)) {
    return new NatsSourceError("broker_error", say("nothing answered the request (JetStream unavailable?)"), { cause: err });
  }
  if (isNotFound(err)) {
    return new NatsSourceError("not_provisioned", say(err.message), { cause: err });
  }
  if (err instanceof JetStreamApiError) {
    return new NatsSourceError("broker_error", say(`JetStream refused: ${err.message} (error ${err.code})`), { cause: err });
  }
  const code = systemCode(err);
  if (code !== undefined && SYSTEM_WORDS[code] !== undefined) {
    return new NatsSourceError("connect_failed", say(SYSTEM_WORDS[code]), { cause: err });
  }
  if (err instanceof ConnectionError) {
    return new NatsSourceError("connect_failed", say(err.message), { cause: err });
  }
  return new NatsSourceError("broker_error", say(err.message), { cause: err });
}
