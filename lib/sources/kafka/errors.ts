import type { KafkaTarget } from "./options";

// kafkajs is CommonJS and spreads its error classes into its exports, which Node's ESM loader cannot name: errors
// are told apart by the `name` each class sets, and read through the fields kafkajs documents.
interface KafkaJsError extends Error {
  retriable?: boolean;
  /** a protocol error's Kafka error name (UNKNOWN_TOPIC_OR_PARTITION, …) */
  type?: string;
  cause?: unknown;
}

function kafkaJsError(e: unknown, ...names: string[]): e is KafkaJsError {
  return e instanceof Error && (names.length === 0 ? e.name.startsWith("KafkaJS") : names.includes(e.name));
}

export type KafkaSourceErrorCode =
  /** the URL cannot name a Kafka cluster */
  | "invalid_url"
  /** no connection: refused, unknown host, timed out, lost */
  | "unreachable"
  /** SASL refused the credentials, or the user may not read the topic or use the group */
  | "auth_failed"
  /** the dead-letter topic does not exist */
  | "not_found"
  /** `ack` was given a message this connector did not hand out */
  | "invalid_receipt"
  /** the connector was closed */
  | "closed"
  /** any other refusal by the cluster */
  | "broker";

/** What every method of the Kafka connector rejects with; the message never holds the URL's password. */
export class KafkaSourceError extends Error {
  override readonly name = "KafkaSourceError";
  readonly code: KafkaSourceErrorCode;

  constructor(code: KafkaSourceErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** kafkajs gives up after its retries with the last error as the cause: that one says what happened. */
function unwrap(e: unknown): unknown {
  let cur = e;
  for (let i = 0; i < 5 && kafkaJsError(cur, "KafkaJSNumberOfRetriesExceeded") && cur.cause; i++) cur = cur.cause;
  return cur;
}

function classify(error: unknown): KafkaSourceErrorCode {
  const e = unwrap(error);
  if (e instanceof KafkaSourceError) return e.code;
  if (kafkaJsError(e, "KafkaJSSASLAuthenticationError")) return "auth_failed";
  if (kafkaJsError(e, "KafkaJSProtocolError", "KafkaJSOffsetOutOfRange", "KafkaJSMemberIdRequired")) {
    if (/AUTHORIZATION_FAILED|SASL/.test(e.type ?? "")) return "auth_failed";
    if (e.type === "UNKNOWN_TOPIC_OR_PARTITION") return "not_found";
    return "broker";
  }
  if (
    kafkaJsError(e, "KafkaJSConnectionError", "KafkaJSConnectionClosedError", "KafkaJSRequestTimeoutError", "KafkaJSNoBrokerAvailableError")
  )
    return "unreachable";
  if (e instanceof Error && "code" in e && typeof e.code === "string" && /^E[A-Z]+$/.test(e.code)) return "unreachable";
  return "broker";
}

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (s) out = out.split(s).join("***");
  return out;
}

function messageOf(e: unknown): string {
  const inner = unwrap(e);
  if (inner instanceof Error) return inner.message || inner.name;
  return String(inner);
}

/** The error a connector method rejects with: what it was doing, where, and what the cluster or the socket said. */
export function sourceError(e: unknown, target: KafkaTarget, doing: string): KafkaSourceError {
  if (e instanceof KafkaSourceError) return e;
  const code = classify(e);
  const hint = code === "auth_failed" ? " (check the user name, password and ?sasl= mechanism in the source URL)" : "";
  return new KafkaSourceError(code, `${doing} on ${target.display} failed: ${scrub(messageOf(e), target.secrets)}${hint}`);
}

/** Whether publishing the same record again later may succeed. */
export function isRetryable(e: unknown): boolean {
  const code = classify(e);
  if (code === "unreachable" || code === "closed") return true;
  if (code === "auth_failed" || code === "not_found") return false;
  const inner = unwrap(e);
  return kafkaJsError(inner) ? inner.retriable !== false : true;
}
