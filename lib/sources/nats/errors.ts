// The one error type this connector rejects with. Its message says what happened in words an operator can act on
// and never carries the source URL's secrets (the connector only ever hands the client "host:port").

export type NatsSourceErrorCode =
  /** the URL or options cannot describe a source */
  | "invalid_config"
  /** a method was called with something it cannot use (a receipt from another connector, a negative batch) */
  | "invalid_argument"
  /** no connection: refused, unreachable, TLS, or JetStream not enabled */
  | "connect_failed"
  /** the server refused the credentials or a permission */
  | "auth_failed"
  /** the server did not answer in time (it may be down or restarting) */
  | "timeout"
  /** the connector or its connection is closed */
  | "closed"
  /** the advisory stream or consumer is missing: provision() has not run, or someone deleted them */
  | "not_provisioned"
  /** JetStream refused a request for another reason (its own words are in the message) */
  | "broker_error";

export class NatsSourceError extends Error {
  override readonly name = "NatsSourceError";

  constructor(
    readonly code: NatsSourceErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
