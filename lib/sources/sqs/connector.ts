import "server-only";
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from "@aws-sdk/client-sqs";
import type { ConnectorConfig, OutgoingMessage, PublishResult, PulledMessage, SourceConnector } from "../connector";
import { isRetryable, SqsSourceError, sourceError } from "./errors";
import { outgoingSend, sendTarget, toPulled, type QueueArn } from "./message";
import { endpointOf, parseSqsUrl, regionOf, type SqsOptions } from "./options";

/** SQS's own limits: messages per ReceiveMessage, entries per batch call, seconds of a long poll. */
const RECEIVE_MAX = 10;
const BATCH_MAX = 10;
const LONG_POLL_MAX_S = 20;
/** ReceiveMessage / ChangeMessageVisibilityBatch calls in flight at once: one round trip each, 10 messages a call. */
const PARALLEL_CALLS = 4;
/**
 * DeleteMessageBatch calls go one at a time: moto (the SQS-compatible server the tests use) answers concurrent
 * batches with success and yet keeps some of their messages (21 of 200 with 4 in flight), which would come back as
 * duplicates. SQS itself does not, but a delete is the cheap half of a pull.
 */
const PARALLEL_DELETES = 1;

interface SqsReceipt {
  owner: symbol;
  handle: string;
}

function isReceipt(r: unknown, owner: symbol): r is SqsReceipt {
  return typeof r === "object" && r !== null && (r as SqsReceipt).owner === owner && typeof (r as SqsReceipt).handle === "string";
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs `fn` over `items` with at most `limit` calls at a time, results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/**
 * An SQS dead-letter queue as a source. Requests go only to the configured endpoint (the queue URL's origin unless
 * `endpoint` says otherwise), never to a host a message or a queue URL names (useQueueUrlAsEndpoint: false).
 *
 * A taken message stays invisible for `visibilityTimeoutSeconds`; until it is acknowledged (deleted after its
 * record committed), the connector extends that every half period, so a large page being stored is not handed out
 * again meanwhile. A crash stops the extension: the messages reappear and are recognised by their position.
 */
export async function createSqsConnector(config: ConnectorConfig<SqsOptions>): Promise<SourceConnector> {
  // Redrive runs on Node 20 (package.json engines) and the lockfile pins this SDK: its notice that later releases
  // will need Node 22 says nothing an operator can act on, and it interleaved with every CLI command's output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const parsed = parseSqsUrl(config.url);
  if (!parsed.ok) throw new SqsSourceError("invalid_url", `source "${config.name}": the URL ${parsed.message}`);
  const queue = parsed.queue;
  const options = config.options;
  const client = new SQSClient({
    region: regionOf(queue, options),
    endpoint: endpointOf(queue, options),
    useQueueUrlAsEndpoint: false,
    ...(queue.credentials ? { credentials: queue.credentials } : {}),
    maxAttempts: 3,
    // A long poll waits up to 20 s on the server: the request timeout outlasts it.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: (LONG_POLL_MAX_S + 10) * 1000 },
  });
  const owner = Symbol(config.name);
  const visibility = options.visibilityTimeoutSeconds;
  const log = (message: string) => console.error(`[source ${config.name}] ${message}`);

  // Receipt handles taken and not yet deleted, kept invisible by the heartbeat.
  const held = new Set<string>();
  let heartbeat: NodeJS.Timeout | null = null;
  let closed = false;
  const closedError = () => new SqsSourceError("closed", `source "${config.name}" is closed`);

  async function run<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    if (closed) throw closedError();
    try {
      return await fn();
    } catch (e) {
      throw sourceError(e, queue, doing);
    }
  }

  async function extendHeld(): Promise<void> {
    const handles = [...held];
    await mapLimited(chunks(handles, BATCH_MAX), PARALLEL_CALLS, async (chunk) => {
      const res = await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queue.queueUrl,
          Entries: chunk.map((h, i) => ({ Id: String(i), ReceiptHandle: h, VisibilityTimeout: visibility })),
        }),
      );
      // A handle SQS no longer takes (its message was handed out again) cannot be deleted either: stop extending it.
      for (const f of res.Failed ?? []) {
        const h = chunk[Number(f.Id)];
        if (h !== undefined) held.delete(h);
      }
    });
  }

  function holdOn(handles: string[]): void {
    for (const h of handles) held.add(h);
    if (heartbeat || held.size === 0) return;
    heartbeat = setInterval(
      () => {
        if (held.size === 0) return;
        extendHeld().catch((e: unknown) => log(sourceError(e, queue, "extending the visibility of taken messages").message));
      },
      (visibility * 1000) / 2,
    );
    heartbeat.unref();
  }

  async function receive(max: number, waitSeconds: number): Promise<Message[]> {
    const res = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: waitSeconds,
        VisibilityTimeout: visibility,
        MessageSystemAttributeNames: ["All"],
        MessageAttributeNames: ["All"],
      }),
    );
    return res.Messages ?? [];
  }

  // GetQueueUrl answers per source queue (ARN) once per connection.
  const urls = new Map<string, Promise<string>>();
  function urlOf(arn: QueueArn): Promise<string> {
    const k = `${arn.account}:${arn.name}`;
    let url = urls.get(k);
    if (!url) {
      url = client
        .send(new GetQueueUrlCommand({ QueueName: arn.name, QueueOwnerAWSAccountId: arn.account }))
        .then((r) => r.QueueUrl ?? Promise.reject(new SqsSourceError("broker", `GetQueueUrl named no URL for ${arn.name}`)));
      urls.set(k, url);
      url.catch(() => urls.delete(k));
    }
    return url;
  }

  const failed = (error: string, retryable: boolean): PublishResult => ({ outcome: "failed", error, retryable });

  return {
    provision: () =>
      run("reading the queue's attributes", async () => {
        await client.send(new GetQueueAttributesCommand({ QueueUrl: queue.queueUrl, AttributeNames: ["QueueArn"] }));
      }),

    // Redrive creates nothing on SQS.
    deprovision: async () => {},

    waiting: () =>
      run("counting dead letters", async () => {
        const res = await client.send(
          new GetQueueAttributesCommand({ QueueUrl: queue.queueUrl, AttributeNames: ["ApproximateNumberOfMessages"] }),
        );
        const n = Number(res.Attributes?.ApproximateNumberOfMessages);
        return Number.isFinite(n) ? n : null;
      }),

    async take(max: number, waitMs: number): Promise<PulledMessage[]> {
      if (!Number.isInteger(max) || max < 0) throw new RangeError(`take: max must be a whole number ≥ 0, got ${max}`);
      if (!(waitMs >= 0)) throw new RangeError(`take: waitMs must be ≥ 0, got ${waitMs}`);
      if (closed) throw closedError();
      if (max === 0) return [];
      return run(`reading dead letters from ${queue.name}`, async () => {
        // The first call may wait (long poll); the rest take what is there, several calls at a time, until a round
        // brings fewer than it asked for. A short poll samples some of SQS's servers, so on real SQS a page can end
        // early: the next pull goes on.
        const got: Message[] = await receive(Math.min(RECEIVE_MAX, max), Math.min(LONG_POLL_MAX_S, Math.ceil(waitMs / 1000)));
        let full = got.length === Math.min(RECEIVE_MAX, max);
        while (full && got.length < max && !closed) {
          const wants = chunks(Array.from({ length: Math.min(max - got.length, RECEIVE_MAX * PARALLEL_CALLS) }), RECEIVE_MAX).map(
            (c) => c.length,
          );
          const rounds = await Promise.all(wants.map((n) => receive(n, 0)));
          for (const r of rounds) got.push(...r);
          full = rounds.every((r, i) => r.length === wants[i]);
        }
        const ctx = { queueName: queue.name, sourceQueueUrl: options.sourceQueueUrl ?? null };
        const pulled = got
          .filter((m): m is Message & { ReceiptHandle: string } => typeof m.ReceiptHandle === "string")
          .map((m) => ({ ...toPulled(m, ctx), receipt: { owner, handle: m.ReceiptHandle } satisfies SqsReceipt }));
        holdOn(pulled.map((p) => p.receipt.handle));
        return pulled;
      });
    },

    async ack(messages: readonly PulledMessage[]) {
      const handles: string[] = [];
      for (const m of messages) {
        if (!isReceipt(m.receipt, owner)) {
          throw new SqsSourceError(
            "invalid_receipt",
            `ack: message ${m.origin.position} was not taken from ${queue.name} by this connection`,
          );
        }
        handles.push(m.receipt.handle);
      }
      if (handles.length === 0) return;
      await run(`deleting ${handles.length} dead letters from ${queue.name}`, async () => {
        const failures: string[] = [];
        try {
          await mapLimited(chunks(handles, BATCH_MAX), PARALLEL_DELETES, async (chunk) => {
            const res = await client.send(
              new DeleteMessageBatchCommand({
                QueueUrl: queue.queueUrl,
                Entries: chunk.map((h, i) => ({ Id: String(i), ReceiptHandle: h })),
              }),
            );
            for (const f of res.Failed ?? []) failures.push(`${f.Code ?? "failed"}: ${f.Message ?? ""}`.trim());
          });
        } finally {
          for (const h of handles) held.delete(h);
        }
        // Each such message comes back after its visibility timeout and is then recognised as stored.
        if (failures.length > 0) {
          throw new SqsSourceError(
            "broker",
            `${failures.length} of ${handles.length} deletes refused (${failures[0]}); those messages come back and are skipped as stored`,
          );
        }
      });
    },

    async publish(message: OutgoingMessage): Promise<PublishResult> {
      const d = message.origin.destination;
      if (d.type !== "sqs") return failed(`the message's destination is a ${d.type} destination, not an SQS queue`, false);
      if (message.key === "") return failed("the message has no idempotency key to publish it once with", false);
      if (closed) return failed(closedError().message, true);
      const target = sendTarget(d);
      if (!target.ok) return failed(target.reason, false);
      const send = outgoingSend(message.key, message.body, message.origin, target.fifo);
      if (!send.ok) return failed(send.reason, false);
      const where = target.by === "arn" ? target.arn.name : target.url;
      try {
        const queueUrl = target.by === "arn" ? await urlOf(target.arn) : target.url;
        await client.send(new SendMessageCommand({ QueueUrl: queueUrl, ...send.send }));
        // A FIFO queue that already had this deduplication id within five minutes answers as if it took it.
        return { outcome: "applied" };
      } catch (e) {
        return failed(sourceError(e, queue, `sending to ${where}`).message, isRetryable(e));
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      if (heartbeat) clearInterval(heartbeat);
      held.clear();
      client.destroy();
    },
  };
}
