import { z } from "zod";
import { SinkTypeNameSchema } from "../../vocabulary/plug-types";
import { ApprovedRepairSchema, SentRepairSchema } from "../../vocabulary/record";
import { IdSchema, JsonValueSchema } from "./record-id";
import { DeadLetterSummarySchema } from "./list";
import { DecidedByRuleSchema } from "../../rules/rule-schemas";

// GET /api/dead-letters/{id}: one record with its analysis, history and latest replay, masked for the reader.

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
    /** the batch's sink type (OpenAPI lists the registered ones) */
    sink: SinkTypeNameSchema,
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
