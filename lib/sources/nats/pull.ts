import "server-only";
import { createInbox, nanos, TimeoutError, type Msg, type NatsConnection } from "@nats-io/transport-node";
import { NatsSourceError } from "./errors";
import { mapInParallel } from "./parallel";

// The pull request is made by hand rather than with the client's consumer.fetch(), which only ends early when the
// batch is full (a batch of 100 with 3 waiting would sit out the whole wait) and refuses waits under 1 s.
// `no_wait` together with `expires` asks the server to wait up to `expires` for the FIRST message and then hand
// over whatever is there at once (nats-server consumer.go, "one-shot"; ADR-13). Measured on 2.9.10: 3 of 5
// waiting come back in 1 ms, an empty consumer answers 408 after the wait, one arriving at 300 ms ends it at 304.

/** Slack for the server's 408 to arrive before the wait counts as "no answer". */
const ANSWER_GRACE_MS = 5_000;

const ACK = new TextEncoder().encode("+ACK");
const NAK = new TextEncoder().encode("-NAK");

/** Ack requests in flight at once: enough to hide the round trip; a batch of thousands goes in waves. */
const ACK_CONCURRENCY = 256;

export interface PullTarget {
  /** the JetStream API prefix ("$JS.API" unless a domain is used) */
  apiPrefix: string;
  stream: string;
  consumer: string;
}

/** Up to `batch` deliveries from a durable pull consumer, waiting at most `waitMs` for the first one. */
export function pullBatch(nc: NatsConnection, target: PullTarget, batch: number, waitMs: number): Promise<Msg[]> {
  const subject = `${target.apiPrefix}.CONSUMER.MSG.NEXT.${target.stream}.${target.consumer}`;
  const request = waitMs > 0 ? { batch, no_wait: true, expires: nanos(waitMs) } : { batch, no_wait: true };
  const inbox = createInbox();
  const got: Msg[] = [];

  return new Promise<Msg[]>((resolve, reject) => {
    let settled = false;
    // Deliveries that arrive after this are not lost: unacknowledged, they come back after the ack wait.
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sub.unsubscribe();
      if (err && got.length === 0) reject(err);
      else resolve(got);
    };
    const sub = nc.subscribe(inbox, {
      callback: (err, msg) => {
        if (err) return finish(err);
        // Deliveries carry an ack subject; the server's pull statuses (404, 408, 409, 503) carry none.
        if (msg.reply) {
          got.push(msg);
          if (got.length >= batch) finish();
          return;
        }
        const code = msg.headers?.code ?? 0;
        if (code === 404 || code === 408) return finish();
        finish(pullStatusError(code, msg.headers?.description ?? "", target));
      },
    });
    const timer = setTimeout(
      () =>
        finish(
          new NatsSourceError(
            "timeout",
            `no answer to the pull from ${target.stream}/${target.consumer} within ${waitMs + ANSWER_GRACE_MS} ms (server down or restarting, or the consumer deleted?)`,
          ),
        ),
      waitMs + ANSWER_GRACE_MS,
    );
    try {
      nc.publish(subject, JSON.stringify(request), { reply: inbox });
    } catch (err) {
      finish(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

function pullStatusError(code: number, description: string, target: PullTarget): NatsSourceError {
  const which = `advisory consumer ${target.consumer} on stream ${target.stream}`;
  // No subscriber on the consumer's API subject: the server answers 503 "no responders".
  if (code === 503) return new NatsSourceError("not_provisioned", `the ${which} does not exist (has provision() run?)`);
  if (/consumer deleted|stream deleted/i.test(description))
    return new NatsSourceError("not_provisioned", `the ${which} was deleted (${description})`);
  return new NatsSourceError("broker_error", `the ${which} refused the pull: ${code} ${description}`.trim());
}

/**
 * Acknowledges deliveries by their reply subjects and resolves once the server has applied every one. Each ack is
 * a request: the server answers it after the consumer has processed the ack (the client's ackAck()). A flush would
 * only say the server read them: since 2.9 a consumer applies acks from a queue of its own, so a count asked for
 * right after could still include them.
 */
export async function ackReplies(nc: NatsConnection, replies: readonly string[], timeoutMs: number): Promise<void> {
  await mapInParallel(replies, ACK_CONCURRENCY, async (reply) => {
    try {
      await nc.request(reply, ACK, { timeout: timeoutMs });
    } catch (err) {
      if (err instanceof TimeoutError)
        throw new NatsSourceError("timeout", `the server did not confirm an acknowledgement within ${timeoutMs} ms`, { cause: err });
      throw err;
    }
  });
}

/** Hands deliveries back at once (a take that failed half-way), instead of after the ack wait. Best effort. */
export function nakReplies(nc: NatsConnection, replies: Iterable<string>): void {
  try {
    for (const reply of replies) nc.publish(reply, NAK);
  } catch {
    // closed connection: the server redelivers them after the ack wait anyway
  }
}
