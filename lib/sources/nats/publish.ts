import "server-only";
import { headers } from "@nats-io/transport-node";
import type { OutgoingMessage, PublishResult } from "../connector";
import type { NatsSession } from "./connection";
import { REQUEST_TIMEOUT_MS } from "./connection";
import { publishAcked, publishFailed } from "./publish-outcome";
import { replayHeaders, unsendableHeader } from "./replay-headers";

// publish(): the message goes back to the subject it was published on, confirmed by a PubAck. The key is the
// JetStream message id, so a second publish of the same key within the stream's duplicate_window (default two
// minutes) is answered `duplicate` and stored once; after the window the stream has forgotten the id, and the
// Idempotency-Key header is what lets a consumer recognise the replay.

export async function publishBack(session: NatsSession, message: OutgoingMessage): Promise<PublishResult> {
  const { destination } = message.origin;
  if (destination.type !== "nats") {
    return { outcome: "failed", error: `a ${destination.type} dead letter cannot be published to NATS`, retryable: false };
  }
  if (destination.subject === "") {
    return {
      outcome: "failed",
      error: "the dead letter's subject is unknown (its message was gone when it was pulled), so it has nowhere to go",
      retryable: false,
    };
  }
  if (message.key === "") return { outcome: "failed", error: "the idempotency key is empty", retryable: false };

  const pairs = replayHeaders(message.origin.headers, message.key);
  const unsendable = unsendableHeader(pairs);
  if (unsendable !== null) return { outcome: "failed", error: `cannot be sent as NATS headers: ${unsendable}`, retryable: false };
  const h = headers();
  for (const [name, value] of pairs) h.append(name, value);

  try {
    const ack = await session.js.publish(destination.subject, message.body, {
      msgID: message.key,
      headers: h,
      // Back into the stream it died in; if the subject now lands elsewhere, a person should decide.
      expect: { streamName: destination.stream },
      timeout: REQUEST_TIMEOUT_MS,
    });
    return publishAcked(ack);
  } catch (err) {
    return publishFailed(err, destination.subject, destination.stream, session.where);
  }
}
