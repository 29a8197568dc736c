import { z } from "zod";
import type { RecordScope } from "../../scope/record-scope";
import { REPAIR_METHODS, REPAIR_POLICIES } from "../../vocabulary/record";
import { bigintIdSchema, PG_INT_MAX } from "../../db/column-limits";
import { FilterBodySchema, ListFilterSchema } from "../../dead-letters/filters";
import { hasUrlCredentials } from "../../net/outbound";
import type { DeadLetterKind } from "@/lib/vocabulary/record";
import { PostgisSinkSchema, StoredPostgisSinkSchema, type PostgisSinkView } from "./postgis-sink-schema";

// The replay engine's boundary shapes: request bodies and queries (routes, CLI), the stored sink config, and
// the views the API returns. zod only, so client components import it too.

export const BATCH_STATUSES = ["draft", "approved", "running", "paused", "completed", "cancelled", "failed"] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const ITEM_STATUSES = ["pending", "running", "retry", "applied", "deduped", "dropped", "poison", "failed", "cancelled"] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
export const TERMINAL_ITEM_STATUSES = ["applied", "deduped", "dropped", "poison", "failed", "cancelled"] as const;

export { REPAIR_METHODS, REPAIR_POLICIES };

/**
 * Headers the HTTP sink sets itself, and the connection-level ones its client (undici's request) refuses to send
 * (keep-alive, upgrade, expect): a batch may not set them.
 */
const RESERVED_HEADERS = new Set([
  "idempotency-key",
  "content-type",
  "content-length",
  "host",
  "connection",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "expect",
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const LedgerSinkSchema = z.strictObject({ type: z.literal("ledger") });

export const HttpSinkSchema = z.strictObject({
  type: z.literal("http"),
  url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2000)
    .refine((u) => !hasUrlCredentials(u), {
      error: "must not contain a user name or password (fetch refuses them; send credentials in a header)",
    }),
  headers: z
    // A value fetch's Headers refuse (CR, LF, NUL; a character above U+00FF, as header values are bytes) would make
    // every request fail after the batch started.
    .record(
      z.string().regex(HEADER_NAME, "must be an HTTP header name"),
      z
        .string()
        .max(4096)
        .regex(/^[^\r\n\0]*$/, "must not contain CR, LF or NUL")
        .regex(/^[\u0000-\u00ff]*$/, "must hold only Latin-1 characters (U+0000–U+00FF); fetch refuses others"),
    )
    .refine((h) => Object.keys(h).every((k) => !RESERVED_HEADERS.has(k.toLowerCase())), {
      error: `may not set ${[...RESERVED_HEADERS].join(", ")} (the sink sets them or its client refuses them)`,
    })
    .optional(),
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** requests in flight per worker lane */
  concurrency: z.number().int().min(1).max(64).default(4),
});

/** Back where each record came from: its source's broker, its original exchange, subject or stream. */
export const OriginSinkSchema = z.strictObject({ type: z.literal("origin") });

export const SinkSchema = z.discriminatedUnion("type", [LedgerSinkSchema, HttpSinkSchema, OriginSinkSchema, PostgisSinkSchema]);
export type SinkConfig = z.output<typeof SinkSchema>;
/** A sink as replay_batch.sink holds it: the same, but a PostGIS URL is sealed (create-batch.ts seals it). */
export const StoredSinkSchema = z.discriminatedUnion("type", [LedgerSinkSchema, HttpSinkSchema, OriginSinkSchema, StoredPostgisSinkSchema]);
export type StoredSinkConfig = z.output<typeof StoredSinkSchema>;
export type HttpSinkConfig = z.output<typeof HttpSinkSchema>;

const IdSchema = z.union([bigintIdSchema("must be a record id"), z.number().int().positive()]).transform(String);

export const CreateBatchBody = z
  .strictObject({
    ids: z.array(IdSchema).min(1).max(100_000).optional(),
    filter: FilterBodySchema.optional(),
    sink: SinkSchema,
    ratePerSecond: z.number().positive().max(1_000_000),
    pageSize: z.number().int().min(1).max(1000).default(100),
    maxReplays: z.number().int().min(1).max(100).default(3),
    maxAttempts: z.number().int().min(1).max(100).default(5),
    failureThreshold: z.number().gt(0).max(1).default(0.5),
    repair: z
      .strictObject({
        method: z.enum(REPAIR_METHODS).default("linework"),
        policy: z.enum(REPAIR_POLICIES).default("accept"),
        override: z
          .boolean()
          .default(false)
          .describe(
            "replay records approved with another repair with this one too (changing what was approved); false: it applies only to records approved without one",
          ),
        confirmedConflicts: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(
            "with override: the count of approved repairs it changes, as the preview showed it (required; a different count answers 409)",
          ),
      })
      .default({ method: "linework", policy: "accept", override: false }),
    expectedCount: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("the record count the supervisor saw in the preview; a different count answers 409 with `matched`"),
  })
  .refine((b) => (b.ids === undefined) !== (b.filter === undefined), {
    error: "give either ids or filter, not both and not neither",
    path: ["ids"],
  });
export type CreateBatchInput = z.output<typeof CreateBatchBody>;
/** What a client sends (defaults not yet applied). */
export type CreateBatchRequest = z.input<typeof CreateBatchBody>;

/** What a batch was built from, as stored in replay_batch.selection. */
/** What a batch takes, within the scope of who creates it (lib/scope/record-scope.ts). */
export type Selection = ({ ids: string[] } | { filter: z.output<typeof ListFilterSchema> }) & { scope: RecordScope };

export const BatchIdParams = z.object({ id: bigintIdSchema("must be a batch id") });

export const ItemsQuery = z.object({
  status: z.enum(ITEM_STATUSES).optional(),
  /** the last seq of the previous page */
  cursor: z.coerce.number().int().min(0).max(PG_INT_MAX).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export type ItemsQuery = z.output<typeof ItemsQuery>;

export const RateQuery = z.object({
  /** seconds of history; the chart shows the last few minutes */
  window: z.coerce
    .number()
    .int()
    .min(10)
    .max(24 * 3600)
    .default(300),
});

export const ListBatchesQuery = z.object({
  status: z.enum(BATCH_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export interface OutcomeCounts {
  applied: number;
  deduped: number;
  dropped: number;
  poison: number;
  failed: number;
  cancelled: number;
  /** not finished yet: waiting, claimed or waiting to retry */
  pending: number;
}

/** The sink as shown to readers: header values are masked (they may carry credentials). */
export type SinkView =
  | { type: "ledger" }
  | { type: "origin" }
  | { type: "http"; url: string; headers: string[]; timeoutMs: number; concurrency: number }
  | PostgisSinkView;

export interface BatchView {
  id: string;
  status: BatchStatus;
  statusReason: string | null;
  createdBy: { id: string; email: string | null };
  approvedBy: { id: string; email: string | null } | null;
  sink: SinkView;
  selection: Selection;
  ratePerSecond: number;
  /** the multiplier applied after 429/503 from the sink, as of now (1 = full rate; 1 once the batch is not running or paused) */
  throttle: number;
  pageSize: number;
  maxReplays: number;
  maxAttempts: number;
  failureThreshold: number;
  repair: { method: string; policy: string; override?: boolean };
  total: number;
  /** back to origin: every distinct destination of its records, with counts, as at creation; null for other sinks */
  destinations: OriginDestination[] | null;
  counts: OutcomeCounts;
  /** submissions per second over the last 10 s of a running batch; null otherwise (a paused one submits nothing) */
  achievedRate: number | null;
  /** submissions per second over the whole run (first to last submission, pauses included) once ended; null before */
  averageRate: number | null;
  /**
   * replay workers alive now (heartbeat within the last minute), whichever batch they work on: a running batch
   * with none makes no progress, and the page says so instead of counting down an ETA
   */
  liveWorkers: number;
  /** estimated finish time (ISO), from the remaining items and the configured (throttled) rate; null without a worker */
  eta: string | null;
  /** the same as seconds from the time of the answer */
  etaSeconds: number | null;
  createdAt: string;
  approvedAt: string | null;
  /** approved by its creator alone, under the admin's limit (batches of at most this many records); null: four eyes */
  singleApproverLimit: number | null;
  startedAt: string | null;
  finishedAt: string | null;
}

/** The admin's exception to four eyes (lib/replay/batch/single-approver.ts): 0 = every batch needs a second approver. */
export interface SingleApproverSetting {
  limit: number;
  updatedAt: string | null;
  updatedBy: string | null;
}

export const SingleApproverBody = z.strictObject({
  limit: z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 (four eyes for every batch) or more")
    .max(1_000_000, "must be at most 1,000,000")
    .describe("batches of at most this many records may be approved by their creator alone; 0 = four eyes for every batch"),
});

export interface ItemView {
  id: string;
  seq: number;
  deadLetterId: string;
  kind: DeadLetterKind;
  idempotencyKey: string;
  entityKey: string | null;
  observedAt: string;
  status: ItemStatus;
  attempts: number;
  lastError: string | null;
  submittedAt: string | null;
  finishedAt: string | null;
  runAt: string;
}

export interface ItemsPage {
  items: ItemView[];
  nextCursor: number | null;
}

export interface RatePoint {
  /** epoch seconds */
  t: number;
  count: number;
}

export interface RateSeries {
  ratePerSecond: number;
  points: RatePoint[];
}

/** Where a batch back to origin publishes: one broker source's destination (lib/sources/destinations.ts), with its records. */
export interface OriginDestination {
  source: string;
  /** `exchange/routingKey` (RabbitMQ), subject (NATS), stream (Redis), topic (Kafka), queue URL (SQS) */
  destination: string;
  count: number;
  /** within the source's `options.destinations` (or it sets none); a batch back to origin refuses the others */
  allowed: boolean;
}

export interface BatchPreview {
  /** records that will be replayed */
  count: number;
  byKind: { spatial: number; afc: number };
  firstObservedAt: string | null;
  lastObservedAt: string | null;
  entities: number;
  /** the first records in replay order */
  sample: { id: string; kind: DeadLetterKind; idempotencyKey: string; entityKey: string | null; observedAt: string }[];
  /** matched by the selection but left out, by reason */
  /** noOrigin: approved records without an origin, which the origin sink leaves out */
  skipped: { notApproved: number; inActiveBatch: number; noKey: number; noOrigin: number };
  /**
   * records approved with a repair that changed their geometry, by that repair: a batch repair setting other than
   * theirs would replay them differently from what was approved (repairConflicts counts them for a setting)
   */
  pinnedRepairs?: { method: string; policy: string; count: number }[];
  /** the records' origin destinations, most records first (records pulled from a broker source only) */
  destinations?: OriginDestination[];
}

/** How many approved repairs a batch setting would change if it overrode them (pinnedRepairs of a preview). */
export function repairConflicts(pinned: BatchPreview["pinnedRepairs"], repair: { method: string; policy: string }): number {
  return (pinned ?? []).reduce((n, p) => (p.method !== repair.method || p.policy !== repair.policy ? n + p.count : n), 0);
}
