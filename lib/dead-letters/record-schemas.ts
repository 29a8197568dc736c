import { z } from "zod";
import { bigintIdSchema } from "../db/column-limits";
import { CLASSES, EMPTY_FILTER_NEEDS_COUNT, FilterBodySchema, isEmptyFilter, KINDS, ListFilterSchema, STATUSES } from "./filters";
import { MAX_REASON_LENGTH, TRIAGE_ACTIONS } from "./decisions";
import {
  ApprovedRepairSchema,
  RepairMethodSchema,
  RepairPolicySchema,
  SentRepairSchema,
  type DeadLetterKind,
} from "@/lib/vocabulary/record";
import { isJsonValue, type JsonValue } from "@/lib/json/value";
import { DecidedByRuleSchema } from "../rules/rule-schemas";

// Request and response shapes of the triage API: the route handlers parse with them, the client hooks type
// with them and lib/api/openapi.ts documents them. Client-safe: nothing here may import server code.

export const IdSchema = bigintIdSchema("must be a dead letter id (digits)");
export const IdParamsSchema = z.object({ id: IdSchema });

export const JsonValueSchema: z.ZodType<JsonValue> = z
  // A custom check rather than a recursive union (lib/json/value.ts says why); OpenAPI renders it as any value.
  .custom<JsonValue>(isJsonValue, { error: (issue) => (issue.input === undefined ? "is required" : "must be a JSON value") })
  .meta({ id: "JsonValue", description: "Any JSON value" });

const ReasonSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .trim()
  .min(1, "must not be blank")
  .max(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH.toLocaleString("en")} characters`); // its own message: the type's would say "must be a string"
const VersionSchema = z.number().int().min(1).describe("the record's version as last read (optimistic concurrency)");

/** The repair an approval pins (spatial records). Omitted: the source's default, as the record was analysed. */
export const ApproveRepairSchema = z
  .strictObject({
    method: RepairMethodSchema,
    policy: RepairPolicySchema,
    digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex")
      .optional()
      .describe("the digest of the previewed geometry (GET …/repair-preview); a different one now answers 409"),
    acknowledged: z
      .array(z.string().max(500))
      .max(10)
      .optional()
      .describe("the preview's warnings the analyst acknowledged (a large area or type change); recorded with the approval"),
  })
  .meta({ id: "ApproveRepair" });
export type ApproveRepair = z.infer<typeof ApproveRepairSchema>;

/** GET /api/dead-letters/{id}/repair-preview: which repair to preview (omitted: the record's own). */
export const RepairPreviewQuerySchema = z.object({ method: RepairMethodSchema.optional(), policy: RepairPolicySchema.optional() });

export const ActionBodySchema = z
  .discriminatedUnion(
    "action",
    [
      z.strictObject({
        action: z.literal("approve"),
        version: VersionSchema,
        reason: ReasonSchema.optional(),
        repair: ApproveRepairSchema.optional(),
      }),
      z.strictObject({ action: z.literal("quarantine"), version: VersionSchema, reason: ReasonSchema }),
      z.strictObject({ action: z.literal("reopen"), version: VersionSchema, reason: ReasonSchema.optional() }),
      z.strictObject({
        action: z.literal("edit"),
        version: VersionSchema,
        payload: JsonValueSchema,
        /** the edit's note; required with overrideIdentity (the override's justification) */
        reason: ReasonSchema.optional(),
        overrideIdentity: z
          .boolean()
          .optional()
          .describe(
            "AFC: allow changing identity fields (supervisors only; needs reason). Omitted: a supervisor's edit with a reason overrides; false: never",
          ),
      }),
    ],
    { error: `must be one of ${TRIAGE_ACTIONS.join(", ")}` },
  )
  .refine((b) => !(b.action === "edit" && b.overrideIdentity && !b.reason), {
    path: ["reason"],
    message: "is required when overriding identity fields",
  })
  .meta({ id: "ActionBody" });
export type ActionBody = z.infer<typeof ActionBodySchema>;

export const BULK_ACTIONS = ["approve", "quarantine", "reopen"] as const;
export const MAX_BULK_IDS = 10_000;

export const BulkBodySchema = z
  .strictObject({
    action: z.enum(BULK_ACTIONS),
    reason: ReasonSchema.optional(),
    // Numbers too, as POST /api/replays takes them (a script's JSON ids are often numbers).
    ids: z
      .array(z.union([IdSchema, z.number().int().positive().max(Number.MAX_SAFE_INTEGER).transform(String)]))
      .min(1)
      .max(MAX_BULK_IDS)
      .optional(),
    filter: FilterBodySchema.optional().describe("every record matching this list filter, applied on the server"),
    expectedCount: z.number().int().min(0).optional().describe("the count the user confirmed; a different count answers 409"),
    dryRun: z
      .boolean()
      .optional()
      .describe("change nothing: count the matching records (exactly) and say how many would be updated and skipped, and why"),
  })
  .refine((b) => (b.ids === undefined) !== (b.filter === undefined), { path: ["ids"], message: "give exactly one of ids and filter" })
  .refine((b) => b.action !== "quarantine" || !!b.reason, { path: ["reason"], message: "is required to quarantine" })
  .refine((b) => !b.filter || !isEmptyFilter(b.filter) || b.expectedCount !== undefined || b.dryRun === true, {
    path: ["filter"],
    message: EMPTY_FILTER_NEEDS_COUNT,
  })
  .meta({ id: "BulkBody" });
export type BulkBody = z.infer<typeof BulkBodySchema>;

export const BulkResultSchema = z
  .object({
    matched: z.number().int().describe("records the selection named"),
    updated: z.number().int(),
    skipped: z.number().int(),
    /** why records were skipped, with counts ("cannot approve a replayed record": 12) */
    skippedReasons: z.record(z.string(), z.number().int()),
    /** updated, but worth a second look, with counts (approve: taps that still fail their schema, which the replay will drop) */
    warnings: z.record(z.string(), z.number().int()),
  })
  .meta({ id: "BulkResult" });
export type BulkResult = z.infer<typeof BulkResultSchema>;

export const BULK_JOB_STATUSES = ["running", "completed", "cancelled", "failed"] as const;

export const BulkJobSchema = z
  .object({
    id: IdSchema,
    status: z.enum(BULK_JOB_STATUSES),
    action: z.enum(BULK_ACTIONS),
    matched: z.number().int().describe("records matching when the job was created (the count confirmed)"),
    processed: z.number().int().describe("records of the selection worked through so far"),
    updated: z.number().int(),
    skipped: z.number().int(),
    skippedReasons: z.record(z.string(), z.number().int()),
    /** updated, but worth a second look, with counts (approve: taps that still fail their schema) */
    warnings: z.record(z.string(), z.number().int()),
    cancelRequested: z.boolean(),
    error: z.string().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: "BulkJob" });
export type BulkJob = z.infer<typeof BulkJobSchema>;

export const BulkJobAcceptedSchema = z.object({ job: BulkJobSchema }).meta({ id: "BulkJobAccepted" });
export type BulkJobAccepted = z.infer<typeof BulkJobAcceptedSchema>;

export const BulkJobParamsSchema = z.object({ jobId: bigintIdSchema("must be a bulk job id (digits)") });

export const DeadLetterSummarySchema = z
  .object({
    id: IdSchema,
    kind: z.enum(KINDS),
    source: z.string(),
    idempotencyKey: z.string().nullable(),
    eventId: z.string().nullable(),
    deviceId: z.string().nullable(),
    reason: z.string(),
    reasonGroup: z.string(),
    failureClass: z.enum(CLASSES),
    classReason: z.string().nullable(),
    status: z.enum(STATUSES),
    observedAt: z.string(),
    replayCount: z.number().int(),
    failureCount: z.number().int(),
    version: z.number().int(),
    outcome: z.string().nullable(),
  })
  .meta({ id: "DeadLetterSummary" });

export const ListPageSchema = z
  .object({ items: z.array(DeadLetterSummarySchema), nextCursor: z.string().nullable() })
  .meta({ id: "ListPage" });

export const SpatialAnalysisSchema = z
  .object({
    valid_before: z.boolean().nullable(),
    reason: z.string().nullable(),
    location: z.tuple([z.number(), z.number()]).nullable(),
    outcome: z.enum(["valid", "repaired", "dropped"]),
    valid_after: z.boolean().nullable(),
    type_changed: z.boolean(),
    type_before: z.string().nullable(),
    type_after: z.string().nullable(),
    area_before: z.number().nullable(),
    area_after: z.number().nullable(),
    dropped_parts: z.number().int(),
    drop_reason: z.string().nullable(),
    method: z.enum(["linework", "structure"]),
    policy: z.enum(["accept", "largest-part", "drop"]),
    crs: z.string(),
    crosses_antimeridian: z.boolean(),
  })
  .meta({ id: "SpatialAnalysis" });

export const FailureAttemptSchema = z.object({
  attempt: z.number().int(),
  at: z.string(),
  reason: z.string(),
  origin: z.string(),
  /** the replay batch whose item failed (origin replay), or that had replayed the record before this failure */
  batchId: z.string().nullable(),
  /** another sender's re-send of the key, which changed nothing on the record: who sent it */
  alsoSentBy: z.string().nullable(),
});

/** The record's latest replay that reached its sink: what was sent, kept on the replay item for good. */
export const LastReplaySchema = z
  .object({
    batchId: IdSchema,
    itemId: IdSchema,
    outcome: z.enum(["applied", "deduped"]),
    sink: z.string().describe("the batch's sink type: ledger, http, origin or postgis"),
    submittedAt: z.string(),
    /** spatial: the repair it was sent with; null for AFC taps and for items sent before items kept it */
    repair: SentRepairSchema.nullable(),
    /** spatial: the geometry the sink received (EPSG:4326); null when not kept or left out (geometryOmitted) */
    geometry: JsonValueSchema.nullable(),
    geometryOmitted: z.boolean().describe("the sent geometry is too large for this answer"),
  })
  .meta({ id: "LastReplay" });
export type LastReplay = z.infer<typeof LastReplaySchema>;

export const DeadLetterDetailSchema = DeadLetterSummarySchema.extend({
  entityKey: z.string().nullable(),
  sourceMessageId: z.string().nullable(),
  firstSeenAt: z.string(),
  lastFailedAt: z.string(),
  updatedAt: z.string(),
  firstFailureReason: z.string(),
  /** the envelope exactly as received; null once retention cleared it */
  rawEnvelope: z.string().nullable(),
  payload: JsonValueSchema.nullable(),
  /** spatial: validity, reason, location and repair outcome of the current payload */
  analysis: SpatialAnalysisSchema.nullable(),
  repairedGeometry: JsonValueSchema.nullable(),
  /**
   * spatial, approved or replayed: the repair the approval pinned (what a replay sends, and once replayed what it
   * sent), or null when approved without one
   */
  approvedRepair: ApprovedRepairSchema.nullable().optional(),
  /** the latest replay that reached its sink: batch, sink, the repair sent and the geometry sent; null before any */
  lastReplay: LastReplaySchema.nullable().optional(),
  /** approved, quarantined or replayed by a triage rule: the rule, its version and who approved it; null otherwise */
  decidedBy: DecidedByRuleSchema.nullable().optional(),
  /**
   * spatial: the geometry as received (from the raw envelope, in EPSG:4326) once an edit changed the payload's;
   * null while the payload still holds it
   */
  originalGeometry: JsonValueSchema.nullable(),
  /**
   * where a record pulled from a broker came from: {source, sourceType, destination (exchange + routing keys |
   * subject | stream), deathReason, deliveryCount, messageId, position, publishedAt, diedAt, headers, properties};
   * null for records POSTed or imported
   */
  origin: JsonValueSchema.nullable(),
  failures: z.array(FailureAttemptSchema),
  /** keyset cursor positioned at this record: list with it to get the next (desc) or previous (asc) record */
  cursor: z.string(),
});
export type DeadLetterDetail = z.infer<typeof DeadLetterDetailSchema>;

/** A record as the API serves it: masked for the reader (lib/dead-letters/query/mask-detail.ts), saying where. */
export const ServedDeadLetterDetailSchema = DeadLetterDetailSchema.extend({
  maskedPaths: z
    .array(z.string())
    .describe(
      'JSON pointers of the values masked for this reader ("/payload/card_pan", "/rawEnvelope/raw_payload/card_pan"); empty when nothing was',
    ),
}).meta({ id: "DeadLetterDetail" });

export const FacetBucketSchema = z.object({ value: z.string(), count: z.number().int() });
export type FacetBucket = z.infer<typeof FacetBucketSchema>;

export const FacetsSchema = z
  .object({
    total: z.number().int(),
    /** false when counts were estimated from a sample (very large matches); bulk actions recount exactly */
    exact: z.boolean(),
    kind: z.array(FacetBucketSchema),
    status: z.array(FacetBucketSchema),
    class: z.array(FacetBucketSchema),
    source: z.array(FacetBucketSchema),
    /** reason groups, largest first (top 50) */
    reason: z.array(FacetBucketSchema),
  })
  .meta({ id: "Facets" });
export type Facets = z.infer<typeof FacetsSchema>;

export const MapPointsQuerySchema = ListFilterSchema.extend({
  zoom: z.coerce.number().min(0).max(24).default(2).describe("the map's zoom: decides the aggregation grid"),
});

/** GET /api/dead-letters/arrivals: the list's filter, and the watermark its page was loaded at. */
export const ArrivalsQuerySchema = ListFilterSchema.extend({
  after: bigintIdSchema("must be a watermark from an earlier answer (digits)")
    .optional()
    .describe("the watermark of the list's first load; omitted: only the current watermark is answered"),
});

export const ArrivalsSchema = z
  .object({
    watermark: z.string().describe("the newest record's id now: send it as `after` to count what arrives from here"),
    count: z.number().int().describe("records matching the filter that arrived after `after`, at most `cap`"),
    cap: z.number().int().describe("counting stops here; `capped` says it did"),
    capped: z.boolean(),
  })
  .meta({ id: "Arrivals" });
export type Arrivals = z.infer<typeof ArrivalsSchema>;

export const ExtentSchema = z
  .object({
    bbox: z
      .tuple([z.number(), z.number(), z.number(), z.number()])
      .nullable()
      .describe(
        "[west, south, east, north] of the matching spatial records (east may exceed 180 across the antimeridian); null when none has a geometry",
      ),
    count: z.number().int().describe("matching spatial records with a geometry"),
  })
  .meta({ id: "Extent" });

export const MapPointsSchema = z
  .object({
    type: z.literal("FeatureCollection"),
    /** points: one feature per record (id set); grid: one per occupied cell, `n` records, at their mean position */
    mode: z.enum(["points", "grid"]),
    total: z.number().int(),
    /** false when counted from a sample (a crowded view); counts are then estimates */
    exact: z.boolean(),
    features: z.array(
      z.object({
        type: z.literal("Feature"),
        geometry: z.object({ type: z.literal("Point"), coordinates: z.tuple([z.number(), z.number()]) }),
        properties: z.object({ n: z.number().int(), id: IdSchema.optional() }),
      }),
    ),
  })
  .meta({ id: "MapPoints" });
export type MapPoints = z.infer<typeof MapPointsSchema>;

export const ChangedBySchema = z.object({
  email: z.string().nullable(),
  role: z.string().nullable(),
  action: z.string().describe("the audit action, e.g. dead_letter.approved"),
  at: z.string(),
});
export type ChangedBy = z.infer<typeof ChangedBySchema>;

export const ConflictBodySchema = z
  .object({
    error: z.looseObject({
      code: z.literal("conflict"),
      message: z.string(),
      current: ServedDeadLetterDetailSchema.optional().describe("the record as it is now, when it changed under you"),
      changedBy: ChangedBySchema.nullable().optional().describe("who made the record's latest audited change"),
    }),
  })
  .meta({ id: "Conflict" });

/** Quarantine release/purge: explicit ids or a list filter (applied to quarantined records only). */
export const QuarantineBodySchema = z
  .strictObject({
    ids: z.array(IdSchema).min(1).max(10_000).optional(),
    filter: FilterBodySchema.optional(),
    reason: z.string().trim().min(1, "must not be blank").max(1000),
    /** with a filter: the number of quarantined records the user confirmed; a different count answers 409 */
    expectedCount: z.number().int().min(0).optional(),
  })
  .refine((b) => (b.ids === undefined) !== (b.filter === undefined), { path: ["ids"], message: "give exactly one of ids and filter" })
  .refine((b) => !b.filter || !isEmptyFilter(b.filter) || b.expectedCount !== undefined, {
    path: ["filter"],
    message: EMPTY_FILTER_NEEDS_COUNT,
  });
export type QuarantineBody = z.output<typeof QuarantineBodySchema>;

export interface QuarantineGroup {
  reasonGroup: string;
  kind: DeadLetterKind;
  count: number;
  /** records per UTC day of observation, oldest first, the last 14 days */
  trend: { day: string; count: number }[];
  /**
   * Why people quarantined its records (the reason given with the decision), most frequent first, at most
   * QUARANTINE_REASONS_SHOWN; records quarantined automatically (poison) have none.
   */
  reasons?: { reason: string; count: number }[];
}

export const RepairPreviewSchema = z
  .object({
    method: RepairMethodSchema,
    policy: RepairPolicySchema,
    /** the repair as the record's source analyses it (its default): what the page starts from */
    sourceDefault: z.object({ method: RepairMethodSchema, policy: RepairPolicySchema }),
    analysis: SpatialAnalysisSchema,
    /** what a replay with this repair sends (null: nothing, it is dropped) */
    geometry: JsonValueSchema.nullable(),
    /** SHA-256 of that geometry's canonical JSON: send it with the approval to pin exactly this result */
    digest: z.string().nullable(),
    /** what the approval must acknowledge: a large area change or a type change */
    warnings: z.array(z.object({ kind: z.enum(["area", "type"]), message: z.string() })),
    /** the area change (share of the input's area) beyond which a repair is a warning */
    areaChangeWarn: z.number(),
  })
  .meta({ id: "RepairPreview" });
export type RepairPreview = z.infer<typeof RepairPreviewSchema>;
