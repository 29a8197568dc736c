import { z } from "zod";

// What an SQS source is configured with. Its URL (stored sealed, shown redacted) is the dead-letter queue's own
// URL, as the console and `aws sqs get-queue-url` print it; an access key, when the AWS chain should not be used,
// rides in its userinfo (`https://AKID:SECRET@sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq`), so it is
// sealed and redacted like every other source's password. Pure, so the form checks with the connector's rules.

/** AWS regions are lower-case words joined by dashes ending in a digit (us-east-1, eu-central-2, us-gov-west-1). */
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;

const httpUrl = (what: string) =>
  z
    .string({ error: `must be ${what} (a string)` })
    .trim()
    .min(1, `must be ${what}`)
    .refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
      } catch {
        return false;
      }
    }, `must be ${what}: an http:// or https:// URL`);

export const sqsOptionsSchema = z.strictObject({
  /** when absent, read from the queue URL's host (sqs.<region>.amazonaws.com); see regionOf */
  region: z
    .string({ error: "must be an AWS region such as eu-west-1" })
    .trim()
    .regex(REGION, "must be an AWS region such as eu-west-1")
    .optional(),
  /** an SQS-compatible server (ElasticMQ, LocalStack, moto); absent: the queue URL's own scheme and host */
  endpoint: httpUrl("the SQS endpoint").optional(),
  /** where a dead letter goes back when SQS does not name its source queue (DeadLetterQueueSourceArn) */
  sourceQueueUrl: httpUrl("the source queue's URL").optional(),
  /** how long a taken message stays invisible to others; extended while a page is being stored */
  visibilityTimeoutSeconds: z
    .number({ error: "must be a number of seconds" })
    .int("must be a whole number of seconds")
    .min(1, "must be at least 1 second")
    .max(43_200, "must be at most 43,200 seconds (12 hours, SQS's limit)")
    .default(60),
});

export type SqsOptions = z.output<typeof sqsOptionsSchema>;

export interface SqsQueue {
  /** the queue URL without its userinfo: what SQS calls QueueUrl */
  queueUrl: string;
  /** the last path segment */
  name: string;
  fifo: boolean;
  /** the region the host names (sqs.<region>.amazonaws.com, <region>.queue.amazonaws.com), else null */
  hostRegion: string | null;
  /** an access key given in the URL; null: the AWS default chain (environment, profile, instance role, …) */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  /** scheme, host and path: safe to show and log */
  display: string;
}

export type ParsedSqsUrl = { ok: true; queue: SqsQueue } | { ok: false; message: string };

const AWS_HOST = /^(?:sqs\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?|([a-z0-9-]+)\.queue\.amazonaws\.com(?:\.cn)?)$/;

/**
 * Checks a queue URL (`http(s)://[AKID:SECRET@]host[:port]/<account>/<queue name>`). The message names what is
 * wrong and never repeats the secret.
 */
export function parseSqsUrl(url: string): ParsedSqsUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, message: "is not a valid URL (expected https://sqs.<region>.amazonaws.com/<account>/<queue>)" };
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") {
    return { ok: false, message: `must use the https:// (or http://) scheme of a queue URL, not ${u.protocol}//` };
  }
  if (!u.hostname) return { ok: false, message: "names no host" };
  if (u.search || u.hash) return { ok: false, message: "has a query or fragment, which no queue URL has" };
  const segments = u.pathname.split("/").filter((s) => s !== "");
  if (segments.length !== 2) return { ok: false, message: "must name the account and the queue: https://host/<account>/<queue>" };
  const name = decoded(segments[1]!);
  if (name === null || !/^[A-Za-z0-9_-]{1,80}$/.test(name.replace(/\.fifo$/, ""))) {
    return {
      ok: false,
      message: "ends in a queue name SQS would not accept (1–80 letters, digits, '-' or '_', then .fifo for a FIFO queue)",
    };
  }
  const user = decoded(u.username);
  const password = decoded(u.password);
  if (user === null || password === null) return { ok: false, message: "has a malformed %-escape in its access key" };
  if ((user === "") !== (password === "")) {
    return { ok: false, message: "holds half an access key: give both (https://AKID:SECRET@host/…, the secret %-encoded) or neither" };
  }
  const host = u.hostname.toLowerCase().match(AWS_HOST);
  const bare = new URL(url);
  bare.username = "";
  bare.password = "";
  const queueUrl = bare.toString();
  return {
    ok: true,
    queue: {
      queueUrl,
      name,
      fifo: name.endsWith(".fifo"),
      hostRegion: host ? (host[1] ?? host[2] ?? null) : null,
      credentials: user ? { accessKeyId: user, secretAccessKey: password } : null,
      display: queueUrl,
    },
  };
}

/**
 * The region to sign with: the option, else the host's. A host that names none (queue.amazonaws.com, an
 * SQS-compatible server, which accepts any region) gets us-east-1, the region queue.amazonaws.com stands for.
 */
export function regionOf(queue: SqsQueue, options: Pick<SqsOptions, "region">): string {
  return options.region ?? queue.hostRegion ?? "us-east-1";
}

/** Where requests go: the option, else the queue URL's origin. Never a host named by a message. */
export function endpointOf(queue: SqsQueue, options: Pick<SqsOptions, "endpoint">): string {
  return options.endpoint ?? new URL(queue.queueUrl).origin;
}

function decoded(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}
