import { z } from "zod";
import { redactUrlSecrets } from "../masking/url";
import { DeadLetterKindSchema, type DeadLetterKind } from "../vocabulary/record";
import { isKafkaUrl, kafkaOptionsSchema, parseKafkaUrl, redactKafkaUrl } from "./kafka/options";
import { natsOptionsSchema, parseNatsUrl } from "./nats/options";
import { parseRabbitmqUrl, rabbitmqOptionsSchema } from "./rabbitmq/options";
import { parseRedisUrl, redisOptionsSchema } from "./redis/options";
import { parseSqsUrl, sqsOptionsSchema } from "./sqs/options";
import { MAX_DESTINATION_PATTERN_LENGTH, MAX_DESTINATION_PATTERNS } from "./destination-glob";

// A source as the API, the CLI and the /sources page see it: what creates one, what changes one, what is shown.
// Pure (no connections), so the page's form checks with the rules the server applies.

export const SOURCE_TYPES = ["rabbitmq", "nats", "redis", "kafka", "sqs"] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const SourceNameSchema = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(64, "must be at most 64 characters")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must be letters, digits, '.', '_' or '-', starting with a letter or a digit");

/**
 * Where a replay to origin may publish this source's dead letters (lib/sources/destination-glob.ts): glob
 * patterns, `*` for any run of characters, over `exchange/routingKey` (RabbitMQ), the subject (NATS), the stream
 * (Redis), the topic (Kafka) or the queue URL (SQS). Omitted: anywhere a dead letter's origin names — a message
 * published straight into the DLQ with forged routing headers goes where they say.
 */
const destinationsOption = {
  destinations: z
    .array(
      z
        .string({ error: "must be a pattern (a string)" })
        .min(1, "must not be empty")
        .max(MAX_DESTINATION_PATTERN_LENGTH, `must be at most ${MAX_DESTINATION_PATTERN_LENGTH} characters`),
      { error: "must be a list of patterns" },
    )
    .min(1, "must name at least one pattern (omit it to allow every destination)")
    .max(MAX_DESTINATION_PATTERNS, `must be at most ${MAX_DESTINATION_PATTERNS} patterns`)
    .optional(),
};

/** Each type's options and URL rule, from its connector's own modules, with the destinations every type takes. */
export const SOURCE_OPTIONS = {
  rabbitmq: rabbitmqOptionsSchema.safeExtend(destinationsOption),
  nats: natsOptionsSchema.safeExtend(destinationsOption),
  redis: redisOptionsSchema.safeExtend(destinationsOption),
  kafka: kafkaOptionsSchema.safeExtend(destinationsOption),
  sqs: sqsOptionsSchema.safeExtend(destinationsOption),
} as const;

const URL_RULES: Record<SourceType, (url: string) => { ok: true } | { ok: false; message: string }> = {
  rabbitmq: parseRabbitmqUrl,
  nats: parseNatsUrl,
  redis: parseRedisUrl,
  kafka: parseKafkaUrl,
  sqs: parseSqsUrl,
};

/** Why `url` cannot reach a broker of `type` (scheme, host, encoding), or null; never repeats a password. */
export function sourceUrlProblem(type: SourceType, url: string): string | null {
  const parsed = URL_RULES[type](url);
  return parsed.ok ? null : parsed.message;
}

const urlField = z.string({ error: "must be the broker's URL" }).trim().min(1, "must be the broker's URL").max(2048);

const common = {
  name: SourceNameSchema,
  url: urlField,
  kind: DeadLetterKindSchema,
  enabled: z.boolean().default(true),
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * SQS names a queue by its URL, and AWS tools call it `queueUrl`, with an access key beside it: a body may give
 * `options.queueUrl` (for `url`) and `options.accessKeyId` + `options.secretAccessKey` (the stored access key).
 * They become the source's URL, the key in its userinfo, so it is sealed and redacted like any broker password.
 * Anything else (a queueUrl beside a different url, half a key) is left for the schema to refuse by name.
 */
export function sqsOptionsIntoUrl(body: unknown): unknown {
  if (!isRecord(body) || body.type !== "sqs" || !isRecord(body.options)) return body;
  const { queueUrl, accessKeyId, secretAccessKey, ...options } = body.options;
  let url = body.url;
  if (queueUrl !== undefined) {
    if (typeof queueUrl !== "string" || (url !== undefined && url !== queueUrl)) return body;
    url = queueUrl;
  }
  if (accessKeyId !== undefined || secretAccessKey !== undefined) {
    if (typeof accessKeyId !== "string" || typeof secretAccessKey !== "string" || typeof url !== "string") return body;
    try {
      const u = new URL(url);
      if (u.username || u.password) return body;
      u.username = encodeURIComponent(accessKeyId);
      u.password = encodeURIComponent(secretAccessKey);
      url = u.toString();
    } catch {
      return body;
    }
  }
  return { ...body, url, options };
}

export const CreateSourceBody = z.preprocess(
  sqsOptionsIntoUrl,
  z
    .discriminatedUnion(
      "type",
      [
        z.strictObject({ ...common, type: z.literal("rabbitmq"), options: SOURCE_OPTIONS.rabbitmq }),
        z.strictObject({ ...common, type: z.literal("nats"), options: SOURCE_OPTIONS.nats }),
        z.strictObject({ ...common, type: z.literal("redis"), options: SOURCE_OPTIONS.redis }),
        z.strictObject({ ...common, type: z.literal("kafka"), options: SOURCE_OPTIONS.kafka }),
        z.strictObject({ ...common, type: z.literal("sqs"), options: SOURCE_OPTIONS.sqs }),
      ],
      { error: `type: must be one of ${SOURCE_TYPES.join(", ")}` },
    )
    .superRefine((b, ctx) => {
      const problem = sourceUrlProblem(b.type, b.url);
      if (problem) ctx.addIssue({ code: "custom", path: ["url"], message: problem });
    }),
);
export type CreateSourceBody = z.output<typeof CreateSourceBody>;

/** Options are checked against the source's own type by the server (it knows the type). */
export const PatchSourceBody = z
  .strictObject({
    url: urlField.optional(),
    /** replace the stored URL's user name / password only ("" removes it); a url without either keeps the stored ones */
    username: z.string().max(1024).optional(),
    password: z.string().max(1024).optional(),
    kind: DeadLetterKindSchema.optional(),
    options: z.record(z.string(), z.unknown()).optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "give at least one of url, username, password, kind, options, enabled" });
export type PatchSourceBody = z.output<typeof PatchSourceBody>;

export const SourceNameParams = z.object({ name: SourceNameSchema });

export const PullBody = z.strictObject({
  max: z.number().int("must be a whole number").min(1, "must be at least 1").max(100_000, "must be at most 100,000").optional(),
});

export interface PullCounts {
  pulled: number;
  created: number;
  duplicates: number;
  unreadable: number;
  /** a pull's answer only, when there were any (the source's totals count these under `duplicates`): replayed
   * records whose key came back at a new position, now back in triage */
  failedAgain?: number;
}

export interface SourceState {
  /** the last attempt reached the broker; null before the first */
  connected: boolean | null;
  /** dead letters waiting in the broker at waitingAt; null when unknown */
  waiting: number | null;
  waitingAt: string | null;
  lastPullAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  /** failed attempts in a row; the next one is not before nextAttemptAt */
  failures: number;
  nextAttemptAt: string | null;
  pulledToday: number;
  totals: PullCounts;
  /** a worker holds the source's pull lease now */
  pulling: boolean;
}

export interface SourceView {
  name: string;
  type: SourceType;
  kind: DeadLetterKind;
  /** userinfo and query values redacted */
  url: string;
  options: Record<string, unknown>;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  state: SourceState;
}

// A Kafka URL's broker list is no WHATWG URL host, so it has its own redaction.
export const displayUrl = (url: string): string => (isKafkaUrl(url) ? redactKafkaUrl(url) : redactUrlSecrets(url));
