// The one error a RabbitMQ source throws. Its message says what happened in words an operator can act on and
// never holds the URL's password: amqplib's own messages do not, but a Node error may quote its input (an
// invalid URL's TypeError does), so every foreign message passes through `scrub` first.

export type RabbitmqErrorCode =
  /** the URL or the options are not usable; nothing was tried */
  | "invalid_config"
  /** no connection: refused, timed out, unknown host, TLS failure */
  | "unreachable"
  /** the broker refused the credentials or the virtual host */
  | "refused"
  /** the queue or exchange does not exist */
  | "not_found"
  /** the connection or channel closed under an operation */
  | "connection_lost"
  /** the connector was closed by its owner */
  | "closed"
  | "broker";

export class RabbitmqSourceError extends Error {
  override name = "RabbitmqSourceError";
  readonly code: RabbitmqErrorCode;

  constructor(code: RabbitmqErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** An error's message with every trace of `url`'s password (raw and percent-encoded) and the URL itself removed. */
export function scrub(message: string, url: string): string {
  let out = message.split(url).join("<url>");
  let password = "";
  try {
    password = new URL(url).password;
  } catch {
    // An unparsable URL has no password we can find apart from the URL itself, removed above.
  }
  if (password !== "") {
    for (const form of new Set([password, safeDecode(password)])) out = out.split(form).join("***");
  }
  return out;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The AMQP reply code amqplib puts on an error from a closed channel or connection (404, 403, 406, …). */
export function replyCode(err: unknown): number | null {
  if (typeof err !== "object" || err === null || !("code" in err)) return null;
  return typeof err.code === "number" ? err.code : null;
}

/**
 * The broker's own reply text from amqplib's wrapper, e.g. `Operation failed: QueueDeclare; 404 (NOT-FOUND)
 * with message "NOT_FOUND - no queue 'q' in vhost '/'"` → `NOT_FOUND - no queue 'q' in vhost '/'`.
 */
export function replyText(message: string): string {
  const m = /with message "(.*)"/s.exec(message);
  return m?.[1] ?? message;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
