import "server-only";
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type ConsumerInfo,
  type StreamConfig,
} from "@nats-io/jetstream";
import { millis, nanos } from "@nats-io/transport-node";
import type { NatsSession } from "./connection";
import { NatsSourceError } from "./errors";
import { isNotFound, natsFailure } from "./failure";
import type { AdvisoryCapture } from "./names";
import type { NatsOptions } from "./options";

// provision(): advisories are fire-and-forget — one published while nobody listens is gone. So a file-backed
// stream captures them from the moment the source exists, whether Redrive is running or not, and a durable pull
// consumer hands them out. Workqueue retention: an acknowledged advisory has done its job and is removed.

const STREAM_NAME_IN_USE = 10058;
const SUBJECTS_OVERLAP = 10065;
/**
 * Advisories handed out and not yet acknowledged, at most. It caps one take() batch; the server's default (1000)
 * would cap it lower than the batches the pull loop uses.
 */
const MAX_ACK_PENDING = 20_000;

function streamConfig(capture: AdvisoryCapture, options: NatsOptions, sourceName: string): Partial<StreamConfig> & { name: string } {
  return {
    name: capture.stream,
    description: `Redrive source ${JSON.stringify(sourceName)}: dead-letter advisories of stream ${options.stream}`,
    subjects: [...capture.subjects],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
  };
}

function sameSubjects(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join("\n") === [...b].sort().join("\n");
}

async function ensureStream(session: NatsSession, capture: AdvisoryCapture, options: NatsOptions, sourceName: string): Promise<void> {
  const wanted = streamConfig(capture, options, sourceName);
  try {
    await session.jsm.streams.add(wanted);
    return;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === SUBJECTS_OVERLAP) {
      throw new NatsSourceError(
        "broker_error",
        `another stream at ${session.where} already captures ${capture.subjects.join(" and ")} (a second Redrive source for the same stream and consumer?)`,
        { cause: err },
      );
    }
    if (!(err instanceof JetStreamApiError && err.code === STREAM_NAME_IN_USE)) throw err;
  }
  // It exists with another configuration: the source's stream or consumer changed since the last provision().
  const info = await session.jsm.streams.info(capture.stream);
  if (info.config.storage !== StorageType.File || info.config.retention !== RetentionPolicy.Workqueue) {
    throw new NatsSourceError(
      "broker_error",
      `stream ${capture.stream} exists at ${session.where} with another storage or retention; delete it or deprovision the source first`,
    );
  }
  if (!sameSubjects(info.config.subjects, capture.subjects)) {
    await session.jsm.streams.update(capture.stream, { ...info.config, subjects: [...capture.subjects], description: wanted.description });
  }
}

async function ensureConsumer(session: NatsSession, capture: AdvisoryCapture, options: NatsOptions): Promise<void> {
  try {
    const info = await session.jsm.consumers.info(capture.stream, capture.consumer);
    if (millis(info.config.ack_wait ?? 0) !== options.ackWaitMs || info.config.max_ack_pending !== MAX_ACK_PENDING) {
      await session.jsm.consumers.update(capture.stream, capture.consumer, {
        ack_wait: nanos(options.ackWaitMs),
        max_ack_pending: MAX_ACK_PENDING,
      });
    }
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await session.jsm.consumers.add(capture.stream, {
    durable_name: capture.consumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(options.ackWaitMs),
    max_ack_pending: MAX_ACK_PENDING,
    // Unlimited: an advisory that keeps coming back is a dead letter Redrive has not stored yet, not poison.
    max_deliver: -1,
  });
}

export async function provisionCapture(
  session: NatsSession,
  capture: AdvisoryCapture,
  options: NatsOptions,
  sourceName: string,
): Promise<void> {
  try {
    // A stream name with a typo would capture nothing, silently, for ever.
    await session.jsm.streams.info(options.stream);
  } catch (err) {
    if (isNotFound(err))
      throw new NatsSourceError("invalid_config", `stream ${options.stream} does not exist at ${session.where}`, { cause: err });
    throw natsFailure(err, `looking up stream ${options.stream}`, session.where);
  }
  try {
    await ensureStream(session, capture, options, sourceName);
    await ensureConsumer(session, capture, options);
  } catch (err) {
    throw natsFailure(err, `provisioning advisory stream ${capture.stream}`, session.where);
  }
}

export async function deprovisionCapture(session: NatsSession, capture: AdvisoryCapture): Promise<void> {
  const ignoreMissing = (err: unknown) => {
    if (!isNotFound(err)) throw err;
  };
  try {
    await session.jsm.consumers.delete(capture.stream, capture.consumer).catch(ignoreMissing);
    await session.jsm.streams.delete(capture.stream).catch(ignoreMissing);
  } catch (err) {
    throw natsFailure(err, `deleting advisory stream ${capture.stream}`, session.where);
  }
}

/** The advisory consumer's state; rejects with not_provisioned when it (or its stream) does not exist. */
export async function advisoryConsumerInfo(session: NatsSession, capture: AdvisoryCapture, doing: string): Promise<ConsumerInfo> {
  try {
    return await session.jsm.consumers.info(capture.stream, capture.consumer);
  } catch (err) {
    if (isNotFound(err)) {
      throw new NatsSourceError(
        "not_provisioned",
        `${doing}: advisory consumer ${capture.consumer} on stream ${capture.stream} does not exist at ${session.where} (has provision() run?)`,
        {
          cause: err,
        },
      );
    }
    throw natsFailure(err, doing, session.where);
  }
}
