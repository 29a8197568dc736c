import { JetStreamApiError, type PubAck } from "@nats-io/jetstream";
import type { PublishResult } from "../connector";
import { isNoResponders, natsFailure } from "./failure";

// What a publish back to JetStream amounted to. `retryable` says whether the same publish could succeed later
// without anyone changing anything: a missing stream may be recreated, a full one drained, a server restarted.

// JetStream error codes (nats-server errors.json) that mean "not now" rather than "never".
const LATER = new Set([
  10077, // JSStreamStoreFailedF: "maximum messages/bytes exceeded" with discard=new, storage trouble
  10023, // JSInsufficientResourcesErr
  10008, // JSClusterNotAvailErr
]);

export function publishAcked(ack: PubAck): PublishResult {
  return ack.duplicate ? { outcome: "deduped" } : { outcome: "applied" };
}

export function publishFailed(err: unknown, subject: string, stream: string, where: string): PublishResult {
  // The client reports "no responders" to a publish as "jetstream is not enabled" (the RequestError is its cause);
  // for a publish it means that no stream captures the subject (any more), which an operator can fix.
  if (isNoResponders(err) || (err instanceof Error && isNoResponders(err.cause))) {
    return {
      outcome: "failed",
      error: `no JetStream stream captures subject ${subject} at ${where} (it was in stream ${stream})`,
      retryable: true,
    };
  }
  if (err instanceof JetStreamApiError) {
    const retryable = LATER.has(err.code) || err.status === 503;
    const hint = err.code === 10060 ? ` (subject ${subject} now lands in another stream than ${stream})` : "";
    return {
      outcome: "failed",
      error: `JetStream refused the publish to ${subject}: ${err.message}${hint} (error ${err.code})`,
      retryable,
    };
  }
  const failure = natsFailure(err, `publishing to ${subject}`, where);
  const retryable = failure.code !== "auth_failed" && failure.code !== "invalid_config";
  return { outcome: "failed", error: failure.message, retryable };
}
