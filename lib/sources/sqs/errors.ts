import type { SqsQueue } from "./options";

export type SqsSourceErrorCode =
  /** the URL cannot name a queue */
  | "invalid_url"
  /** no connection: refused, unknown host, timed out */
  | "unreachable"
  /** no credentials, or SQS refused them or the action */
  | "auth_failed"
  /** the queue does not exist */
  | "not_found"
  /** SQS asks to slow down, or failed on its side */
  | "throttled"
  /** `ack` was given a message this connector did not hand out */
  | "invalid_receipt"
  /** the connector was closed */
  | "closed"
  /** any other refusal by SQS */
  | "broker";

/** What every method of the SQS connector rejects with; the message never holds the secret access key. */
export class SqsSourceError extends Error {
  override readonly name = "SqsSourceError";
  readonly code: SqsSourceErrorCode;

  constructor(code: SqsSourceErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

const AUTH = new Set([
  "InvalidClientTokenId",
  "UnrecognizedClientException",
  "SignatureDoesNotMatch",
  "AccessDenied",
  "AccessDeniedException",
  "InvalidSecurity",
  "MissingAuthenticationToken",
  "ExpiredToken",
  "CredentialsProviderError",
  "KmsAccessDenied",
]);
const NOT_FOUND = new Set([
  "QueueDoesNotExist",
  "AWS.SimpleQueueService.NonExistentQueue",
  "NonExistentQueue",
  "ResourceNotFoundException",
]);
const THROTTLED = new Set([
  "RequestThrottled",
  "ThrottlingException",
  "Throttling",
  "RequestLimitExceeded",
  "KmsThrottled",
  "ServiceUnavailable",
  "InternalFailure",
  "InternalError",
]);
const CONNECTION = new Set(["TimeoutError", "RequestTimeout", "AbortError"]);

interface SdkLike {
  name?: unknown;
  code?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

function classify(e: unknown): SqsSourceErrorCode {
  if (e instanceof SqsSourceError) return e.code;
  if (typeof e !== "object" || e === null) return "broker";
  const err = e as SdkLike;
  const name = typeof err.name === "string" ? err.name : "";
  if (AUTH.has(name)) return "auth_failed";
  if (NOT_FOUND.has(name)) return "not_found";
  if (THROTTLED.has(name) || err.$fault === "server") return "throttled";
  if (CONNECTION.has(name)) return "unreachable";
  // Node's socket errors (ECONNREFUSED, ENOTFOUND, ECONNRESET, …) carry a string `code`.
  if (typeof err.code === "string" && /^E[A-Z]+$/.test(err.code)) return "unreachable";
  const status = err.$metadata?.httpStatusCode;
  if (status === 403) return "auth_failed";
  return "broker";
}

/** Replaces the secret (raw and %-encoded) wherever a message might echo it. */
function scrub(text: string, queue: Pick<SqsQueue, "credentials">): string {
  const secret = queue.credentials?.secretAccessKey;
  if (!secret) return text;
  return [secret, encodeURIComponent(secret)].reduce((t, s) => t.split(s).join("***"), text);
}

/**
 * Whether the SDK failed to read the endpoint's answer as SQS's: an HTML page, a proxy's error, anything else. Its
 * message quotes the start of that answer (`Unexpected token '<', "<!DOCTYPE "...`), which is not SQS's to show.
 */
function unreadableAnswer(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return e.name === "SyntaxError" || /Deserialization error|is not valid JSON|Unexpected token|<!DOCTYPE|<html|<\?xml/i.test(e.message);
}

function messageOf(e: unknown): string {
  if (unreadableAnswer(e)) {
    const status = (e as SdkLike).$metadata?.httpStatusCode;
    return `the endpoint answered with something other than SQS${typeof status === "number" ? ` (HTTP ${status})` : ""}`;
  }
  if (e instanceof Error) {
    const said = e.message || e.name;
    return e.name && e.name !== "Error" && !said.includes(e.name) ? `${e.name}: ${said}` : said;
  }
  return String(e);
}

/** The error a connector method rejects with: what it was doing, on which queue, and what SQS or the socket said. */
export function sourceError(e: unknown, queue: Pick<SqsQueue, "credentials" | "display">, doing: string): SqsSourceError {
  if (e instanceof SqsSourceError) return e;
  const code = classify(e);
  const hint =
    code === "auth_failed"
      ? queue.credentials
        ? " (check the access key in the source URL and its permissions on the queue)"
        : " (no access key in the source URL: the AWS default chain was used — environment, profile, instance role)"
      : "";
  return new SqsSourceError(code, `${doing} on ${queue.display} failed: ${scrub(messageOf(e), queue)}${hint}`);
}

/** Whether the same call may succeed later: the connection, throttling, SQS's own failures. */
export function isRetryable(e: unknown): boolean {
  const code = classify(e);
  return code === "unreachable" || code === "throttled" || code === "closed";
}
