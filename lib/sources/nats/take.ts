import "server-only";
import type { RetentionPolicy, StoredMsg } from "@nats-io/jetstream";
import type { Msg } from "@nats-io/transport-node";
import type { PulledMessage } from "../connector";
import { parseAckSubject, parseAdvisory, type Advisory } from "./advisory";
import type { NatsSession } from "./connection";
import { isNoMessage, isNotFound, natsFailure } from "./failure";
import type { AdvisoryCapture } from "./names";
import { deadLetterOrigin, instanceOf, missingMessageOrigin, positionOf, unreadableAdvisoryOrigin, type StreamInstance } from "./origin";
import { mapInParallel } from "./parallel";
import { nakReplies, pullBatch } from "./pull";
import { NatsReceipt } from "./receipt";

// take(): advisories from the durable consumer, each turned into the message it names, fetched by sequence from
// its stream. Nothing is acknowledged here; the advisories stay pending until ack() or the ack wait.

/** Message gets in flight at once; each is one request/response to the stream's leader. */
const GET_CONCURRENCY = 64;

interface DeadLetterGroup {
  advisory: Advisory;
  instance: StreamInstance;
  consumers: string[];
  replies: string[];
}

type Slot = { kind: "unreadable"; msg: Msg; reply: string; problem: string } | { kind: "dead"; group: DeadLetterGroup };

/** A stream as take() found it: when it was created (which instance holds the sequences) and its retention. */
interface StreamNow {
  created: string;
  retention: RetentionPolicy;
}

/**
 * One slot per dead letter, in advisory order. Two advisories for one message (two consumers gave up on it, or
 * an advisory handed out again) become one PulledMessage whose receipt acknowledges both; advisories for the same
 * sequence in two instances of a stream stay apart.
 */
function groupDeliveries(parsed: readonly Parsed[], streams: ReadonlyMap<string, StreamNow | null>): Slot[] {
  const slots: Slot[] = [];
  const byPosition = new Map<string, DeadLetterGroup>();
  for (const { msg, reply, result } of parsed) {
    if (!result.ok) {
      slots.push({ kind: "unreadable", msg, reply, problem: result.problem });
      continue;
    }
    const { advisory } = result;
    const instance = instanceOf(advisory, streams.get(advisory.stream)?.created ?? null);
    const position = positionOf(advisory, instance);
    const group = byPosition.get(position);
    if (group) {
      if (!group.consumers.includes(advisory.consumer)) group.consumers.push(advisory.consumer);
      group.replies.push(reply);
      continue;
    }
    const fresh = { advisory, instance, consumers: [advisory.consumer], replies: [reply] };
    byPosition.set(position, fresh);
    slots.push({ kind: "dead", group: fresh });
  }
  return slots;
}

interface Parsed {
  msg: Msg;
  reply: string;
  result: ReturnType<typeof parseAdvisory>;
}

/** Each stream the advisories name, as it is now (null: it does not exist). One request per stream and take. */
async function streamsNow(session: NatsSession, parsed: readonly Parsed[]): Promise<Map<string, StreamNow | null>> {
  const names = [...new Set(parsed.flatMap((p) => (p.result.ok ? [p.result.advisory.stream] : [])))];
  const found = await mapInParallel(names, GET_CONCURRENCY, async (name): Promise<StreamNow | null> => {
    try {
      const info = await session.jsm.streams.info(name);
      return { created: info.created, retention: info.config.retention };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  });
  return new Map(names.map((name, i) => [name, found[i] ?? null]));
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

async function resolve(
  session: NatsSession,
  capture: AdvisoryCapture,
  slots: readonly Slot[],
  streams: ReadonlyMap<string, StreamNow | null>,
): Promise<PulledMessage[]> {
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
    const { advisory, instance, consumers, replies } = slot.group;
    const stream = streams.get(advisory.stream) ?? null;
    const lookup: Lookup =
      stream === null
        ? { missing: `stream ${advisory.stream} no longer exists` }
        : "gone" in instance
          ? {
              missing: `stream ${advisory.stream} was deleted and created again (${stream.created}) after message ${advisory.stream_seq} died`,
            }
          : await lookUp(session, advisory);
    if ("missing" in lookup) {
      const receipt = new NatsReceipt(replies, null, null);
      return { body: Buffer.alloc(0), origin: missingMessageOrigin(advisory, instance, consumers), receipt, problem: lookup.missing };
    }
    const receipt = new NatsReceipt(replies, advisory.stream, advisory.stream_seq, stream?.retention ?? null);
    const stored = lookup.found;
    const origin = deadLetterOrigin(
      advisory,
      instance,
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
    const parsed = deliveries.map((msg) => ({ msg, reply: msg.reply ?? "", result: parseAdvisory(msg.data) }));
    const streams = await streamsNow(session, parsed);
    return await resolve(session, capture, groupDeliveries(parsed, streams), streams);
  } catch (err) {
    nakReplies(
      session.nc,
      deliveries.flatMap((d) => (d.reply ? [d.reply] : [])),
    );
    throw natsFailure(err, "reading dead-lettered messages", session.where);
  }
}
