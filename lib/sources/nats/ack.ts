import "server-only";
import { RetentionPolicy } from "@nats-io/jetstream";
import type { PulledMessage } from "../connector";
import type { NatsSession } from "./connection";
import { REQUEST_TIMEOUT_MS } from "./connection";
import { NatsSourceError } from "./errors";
import { isNoMessage, isNotFound, natsFailure } from "./failure";
import { mapInParallel } from "./parallel";
import { ackReplies } from "./pull";
import { NatsReceipt } from "./receipt";

// ack(): the dead letters are stored in Redrive by now. Two things happen, in this order:
// 1. Under workqueue or interest retention the message itself is deleted from its stream. A message that hit
//    max_deliver is never acknowledged by its consumer, so such a stream would keep it for ever (and a full
//    workqueue stream with discard=new refuses new messages). Under limits retention it stays: other consumers
//    may still read it, and the stream's own limits age it out.
// 2. The advisories are acknowledged, which removes them from the (workqueue) advisory stream.
// Deleting first means a crash in between leaves an advisory that comes back pointing at a message that is gone:
// take() returns it with a problem at the same position, which the store already holds. The other order would
// leave the message in its work queue with nothing left that remembers it.

const DELETE_CONCURRENCY = 64;

function receiptsOf(messages: readonly PulledMessage[]): NatsReceipt[] {
  return messages.map((m) => {
    if (m.receipt instanceof NatsReceipt) return m.receipt;
    throw new NatsSourceError(
      "invalid_argument",
      `ack() was given a message this NATS connector did not take (position ${m.origin.position})`,
    );
  });
}

async function deleteSettled(session: NatsSession, stream: string, seqs: readonly number[]): Promise<void> {
  await mapInParallel(seqs, DELETE_CONCURRENCY, async (seq) => {
    try {
      await session.jsm.streams.deleteMessage(stream, seq, false);
    } catch (err) {
      // Already gone (an earlier ack that did not finish, limits, a person): nothing left to do.
      if (!isNoMessage(err) && !isNotFound(err)) throw err;
    }
  });
}

export async function settleDeadLetters(session: NatsSession, messages: readonly PulledMessage[]): Promise<void> {
  const receipts = receiptsOf(messages);
  const byStream = new Map<string, number[]>();
  for (const r of receipts) {
    if (r.stream === null || r.seq === null) continue;
    if (r.retention !== RetentionPolicy.Workqueue && r.retention !== RetentionPolicy.Interest) continue;
    const seqs = byStream.get(r.stream) ?? [];
    seqs.push(r.seq);
    byStream.set(r.stream, seqs);
  }
  try {
    for (const [stream, seqs] of byStream) await deleteSettled(session, stream, [...new Set(seqs)]);
  } catch (err) {
    throw natsFailure(err, "deleting acknowledged dead letters from their stream", session.where);
  }
  try {
    await ackReplies(
      session.nc,
      receipts.flatMap((r) => r.replies),
      REQUEST_TIMEOUT_MS,
    );
  } catch (err) {
    throw natsFailure(err, "acknowledging advisories", session.where);
  }
}
