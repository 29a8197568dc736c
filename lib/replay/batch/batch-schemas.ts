import { z } from "zod";
import { queryNumber } from "../../vocabulary/query-number";
import type { RecordScope } from "../../scope/record-scope";
import { REPAIR_METHODS, REPAIR_POLICIES } from "../../vocabulary/record";
import { bigintIdSchema, PG_INT_MAX } from "../../db/column-limits";
import { FilterBodySchema, ListFilterSchema } from "../../dead-letters/filters";
import type { DeadLetterKind } from "@/lib/vocabulary/record";
import type { OriginDestination } from "../sinks/origin/origin-config";
import { SinkSchema, type SinkView } from "../sinks/registry";

// The replay engine's boundary shapes: request bodies and queries (routes, CLI) and the views the API returns.
// Each sink's configuration is its own (lib/replay/sinks/<type>/, listed in sinks/registry.ts). zod only, so
// client components import it too.

export const BATCH_STATUSES = ["draft", "approved", "running", "paused", "completed", "cancelled", "failed"] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const ITEM_STATUSES = ["pending", "running", "retry", "applied", "deduped", "dropped", "poison", "failed", "cancelled"] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
export const TERMINAL_ITEM_STATUSES = ["applied", "deduped", "dropped", "poison", "failed", "cancelled"] as const;

export { REPAIR_METHODS, REPAIR_POLICIES };
export type { OriginDestination, SinkView };

const IdSchema = z.union([bigintIdSchema("must be a record id"), z.number().int().positive()]).transform(String);

/** The create body with `sink` as given: the registry's sinks (CreateBatchBody), or more in a test. */
export function createBatchBodyWith<S extends z.ZodType>(sink: S) {
  return z
    .strictObject({
      ids: z.array(IdSchema).min(1).max(100_000).optional(),
      filter: FilterBodySchema.optional(),
      sink,
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
}
export const CreateBatchBody = createBatchBodyWith(SinkSchema);
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
  cursor: queryNumber(z.number().int().min(0).max(PG_INT_MAX)).optional(),
  limit: queryNumber(z.number().int().min(1).max(500).default(50)),
});
export type ItemsQuery = z.output<typeof ItemsQuery>;

export const RateQuery = z.object({
  /** seconds of history; the chart shows the last few minutes */
  window: queryNumber(
    z
      .number()
      .int()
      .min(10)
      .max(24 * 3600)
      .default(300),
  ),
});

export const ListBatchesQuery = z.object({
  status: z.enum(BATCH_STATUSES).optional(),
  limit: queryNumber(z.number().int().min(1).max(200).default(50)),
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
  /** a triage rule's standing replay: the rule version whose approvals feed it (lib/replay/batch/standing-batch.ts); null otherwise */
  rule: { id: string; name: string; version: number } | null;
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
