import "server-only";
import type { StoredMsg } from "@nats-io/jetstream";
import type { Msg } from "@nats-io/transport-node";
import type { PulledMessage } from "../connector";
import { parseAckSubject, parseAdvisory, type Advisory } from "./advisory";
import type { NatsSession } from "./connection";
import { isNoMessage, isNotFound, natsFailure } from "./failure";
import type { AdvisoryCapture } from "./names";
import { deadLetterOrigin, missingMessageOrigin, positionOf, unreadableAdvisoryOrigin } from "./origin";
import { mapInParallel } from "./parallel";
import { nakReplies, pullBatch } from "./pull";
import { NatsReceipt } from "./receipt";

// take(): advisories from the durable consumer, each turned into the message it names, fetched by sequence from
// its stream. Nothing is acknowledged here; the advisories stay pending until ack() or the ack wait.

/** Message gets in flight at once; each is one request/response to the stream's leader. */
const GET_CONCURRENCY = 64;

interface DeadLetterGroup {
  advisory: Advisory;
  consumers: string[];
  replies: string[];
}

type Slot = { kind: "unreadable"; msg: Msg; reply: string; problem: string } | { kind: "dead"; group: DeadLetterGroup };

/**
 * One slot per dead letter, in advisory order. Two advisories for one message (two consumers gave up on it, or
 * an advisory handed out again) become one PulledMessage whose receipt acknowledges both.
 */
function groupDeliveries(deliveries: readonly Msg[]): Slot[] {
  const slots: Slot[] = [];
  const byPosition = new Map<string, DeadLetterGroup>();
  for (const msg of deliveries) {
    const reply = msg.reply ?? "";
    const parsed = parseAdvisory(msg.data);
    if (!parsed.ok) {
      slots.push({ kind: "unreadable", msg, reply, problem: parsed.problem });
      continue;
    }
    const { advisory } = parsed;
    const position = positionOf(advisory.stream, advisory.stream_seq);
    const group = byPosition.get(position);
    if (group) {
      if (!group.consumers.includes(advisory.consumer)) group.consumers.push(advisory.consumer);
      group.replies.push(reply);
      continue;
    }
    const fresh = { advisory, consumers: [advisory.consumer], replies: [reply] };
    byPosition.set(position, fresh);
    slots.push({ kind: "dead", group: fresh });
  }
  return slots;
}

type Lookup = { found: StoredMsg } | { missing: string };

async function lookUp(session: NatsSession, advisory: Advisory): Promise<Lookup> {
  const { stream, stream_seq: seq } = advisory;
  try {
    const found = await session.jsm.streams.getMessage(stream, { seq });
    return found ? { found } : { missing: `message ${seq} is no longer in stream ${stream} (deleted, or removed by the stream's limits)` };
  } catch (err) {
    if (isNotFound(err)) return { missing: `stream ${stream} no longer exists` };
    if (isNoMessage(err)) return { missing: `message ${seq} is no longer in stream ${stream}` };
    throw err;
  }
}

async function resolve(session: NatsSession, capture: AdvisoryCapture, slots: readonly Slot[]): Promise<PulledMessage[]> {
  return mapInParallel(slots, GET_CONCURRENCY, async (slot): Promise<PulledMessage> => {
    if (slot.kind === "unreadable") {
      const seq = parseAckSubject(slot.reply)?.streamSeq ?? null;
      // The advisory's own bytes are the only evidence there is, so they are the body.
      return {
        body: Buffer.from(slot.msg.data),
        origin: unreadableAdvisoryOrigin(capture.stream, seq, slot.msg.subject),
        receipt: new NatsReceipt([slot.reply], null, null),
        problem: slot.problem,
      };
    }
    const { advisory, consumers, replies } = slot.group;
    const lookup = await lookUp(session, advisory);
    if ("missing" in lookup) {
      const receipt = new NatsReceipt(replies, null, null);
      return { body: Buffer.alloc(0), origin: missingMessageOrigin(advisory, consumers), receipt, problem: lookup.missing };
    }
    const receipt = new NatsReceipt(replies, advisory.stream, advisory.stream_seq);
    const stored = lookup.found;
    const origin = deadLetterOrigin(
      advisory,
      { subject: stored.subject, seq: stored.seq, timestamp: stored.timestamp, headers: stored.header },
      consumers,
    );
    return { body: Buffer.from(stored.data), origin, receipt };
  });
}

export async function takeDeadLetters(
  session: NatsSession,
  capture: AdvisoryCapture,
  max: number,
  waitMs: number,
): Promise<PulledMessage[]> {
  let deliveries: Msg[];
  try {
    deliveries = await pullBatch(
      session.nc,
      { apiPrefix: session.js.apiPrefix, stream: capture.stream, consumer: capture.consumer },
      max,
      waitMs,
    );
  } catch (err) {
    throw natsFailure(err, `pulling advisories from ${capture.stream}`, session.where);
  }
  if (deliveries.length === 0) return [];
  try {
    return await resolve(session, capture, groupDeliveries(deliveries));
  } catch (err) {
    nakReplies(
      session.nc,
      deliveries.flatMap((d) => (d.reply ? [d.reply] : [])),
    );
    throw natsFailure(err, "reading dead-lettered messages", session.where);
  }
}
