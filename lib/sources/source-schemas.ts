import { z } from "zod";
import { redactUrlSecrets } from "../masking/url";
import { DeadLetterKindSchema, type DeadLetterKind } from "../vocabulary/record";
import { isKafkaUrl, redactKafkaUrl } from "./kafka/options";
import { MAX_DESTINATION_PATTERN_LENGTH, MAX_DESTINATION_PATTERNS } from "./destination-glob";
import { findSourcePlug, SOURCE_TYPES, SOURCES, sourceUrlProblem, type SourceType } from "./registry";
import type { AnySourceConfigPlug } from "./source-plug";

// A source as the API, the CLI and the /sources page see it: what creates one, what changes one, what is shown.
// Pure (no connections), so the page's form checks with the rules the server applies. Each broker type's options
// and URL rule are its own (lib/sources/<type>/, listed in registry.ts).

export { SOURCE_TYPES, sourceUrlProblem, type SourceType };

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

/** A type's options as a source stores them: its connector's, with the destinations every type takes. */
type WithDestinations<O extends z.ZodObject> = z.ZodObject<z.core.util.Extend<O["shape"], typeof destinationsOption>, O["_zod"]["config"]>;
const withDestinations = <O extends z.ZodObject>(options: O): WithDestinations<O> =>
  options.safeExtend(destinationsOption) as WithDestinations<O>;
type OptionsOf<P extends AnySourceConfigPlug> = WithDestinations<P["options"]>;

/** Each type's options schema, by type. */
export const SOURCE_OPTIONS = Object.fromEntries(SOURCES.map((p) => [p.type, withDestinations(p.options)])) as {
  [P in (typeof SOURCES)[number] as P["type"]]: OptionsOf<P>;
};

const urlField = z.string({ error: "must be the broker's URL" }).trim().min(1, "must be the broker's URL").max(2048);

const common = {
  name: SourceNameSchema,
  url: urlField,
  kind: DeadLetterKindSchema,
  enabled: z.boolean().default(true),
};

type BodyOf<P extends AnySourceConfigPlug> = z.ZodObject<
  typeof common & { type: z.ZodLiteral<P["type"]>; options: OptionsOf<P> },
  z.core.$strict
>;
type BodiesOf<Ps extends readonly AnySourceConfigPlug[]> = { -readonly [K in keyof Ps]: BodyOf<Ps[K]> };

/** What creates a source of one of `plugs`' types: CreateSourceBody for the registry's, more in a test. */
export function createSourceBodyOf<const Ps extends readonly [AnySourceConfigPlug, ...AnySourceConfigPlug[]]>(plugs: Ps) {
  const bodies = plugs.map((p) => z.strictObject({ ...common, type: z.literal(p.type), options: withDestinations(p.options) }));
  return z.preprocess(
    (body) => findSourcePlug((body as { type?: unknown } | null)?.type)?.bodyIntoUrl?.(body) ?? body,
    z
      .discriminatedUnion("type", bodies as unknown as BodiesOf<Ps>, {
        error: `type: must be one of ${plugs.map((p) => p.type).join(", ")}`,
      })
      .superRefine((b, ctx) => {
        const parsed = (plugs.find((p) => p.type === b.type) as AnySourceConfigPlug).urlRule(b.url);
        if (!parsed.ok) ctx.addIssue({ code: "custom", path: ["url"], message: parsed.message });
      }),
  );
}

export const CreateSourceBody = createSourceBodyOf(SOURCES);
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
