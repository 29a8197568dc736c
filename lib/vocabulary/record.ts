// The shape every ingest path (spatial envelope, AFC record, AFC tap capture) normalizes to before storage.
// Pure data: no Prisma types here, so lib/spatial and lib/afc can produce it without touching the database.
// The record's vocabulary (kinds, statuses, classes, repair settings) is declared here once, as zod enums.

import { z } from "zod";
import type { JsonValue } from "../json/value";

/** Declared once: every route schema, SQL filter, list and form reads its values from here. */
export const KINDS = ["spatial", "afc"] as const;
export const STATUSES = ["pending", "approved", "quarantined", "replayed", "purged"] as const;
export const CLASSES = ["transient", "transient_schema", "poison"] as const;
export const REPAIR_METHODS = ["linework", "structure"] as const;
export const REPAIR_POLICIES = ["accept", "largest-part", "drop"] as const;

export const DeadLetterKindSchema = z.enum(KINDS);
/** pending: waiting for triage · approved: ready for a replay · quarantined: held for a human · replayed · purged */
export const DeadLetterStatusSchema = z.enum(STATUSES);
export const FailureClassSchema = z.enum(CLASSES);
export const RepairMethodSchema = z.enum(REPAIR_METHODS);
export const RepairPolicySchema = z.enum(REPAIR_POLICIES);

export type DeadLetterKind = z.infer<typeof DeadLetterKindSchema>;
export type DeadLetterStatus = z.infer<typeof DeadLetterStatusSchema>;
export type FailureClass = z.infer<typeof FailureClassSchema>;
export type RepairMethod = z.infer<typeof RepairMethodSchema>;
export type RepairPolicy = z.infer<typeof RepairPolicySchema>;

/** A field-level problem with an input record; `path` is dotted (e.g. "feature.geometry.coordinates"). */
export interface FieldError {
  path: string;
  message: string;
}

/** What the repair pipeline decided for one spatial record; stored with the record and shown in the UI. */
export interface SpatialAnalysis {
  /** null when the geometry could not be parsed at all */
  valid_before: boolean | null;
  /** GEOS-style reason ("Self-intersection at or near point (1 1)") or our own for parse problems */
  reason: string | null;
  location: [number, number] | null;
  outcome: "valid" | "repaired" | "dropped";
  valid_after: boolean | null;
  type_changed: boolean;
  type_before: string | null;
  type_after: string | null;
  area_before: number | null;
  area_after: number | null;
  /** parts of the repaired result discarded by the policy (largest-part) or repair (collapsed lines/points) */
  dropped_parts: number;
  drop_reason: string | null;
  method: RepairMethod;
  policy: RepairPolicy;
  /** declared CRS of the input; geometry was reprojected to EPSG:4326 when it differs */
  crs: string;
  crosses_antimeridian: boolean;
}

export interface NewDeadLetter {
  kind: DeadLetterKind;
  source: string;
  /** spatial: the stored idempotency key; AFC: the event hash. Verbatim from the producer when given. */
  idempotencyKey: string | null;
  /** ordering key: spatial feature id (or configured property), AFC device_id */
  entityKey: string | null;
  eventId: string | null;
  deviceId: string | null;
  sourceMessageId: string | null;
  observedAt: Date;
  /** observedAt to the microsecond, as UTC RFC 3339 (parse-time.ts Instant); stored when given, else observedAt */
  observedAtExact?: string;
  firstSeenAt: Date;
  /** the record exactly as received (one NDJSON line / one array element, number lexemes preserved) */
  rawEnvelope: string;
  /** the working payload: the GeoJSON Feature (reprojected to EPSG:4326) or the AFC tap */
  payload: JsonValue;
  /** the first failure reason, kept forever */
  failureReason: string;
  failureClass: FailureClass;
  /** why the class was chosen (e.g. "missing idempotency key", "exhausted retries: 3 errors") */
  classReason: string | null;
  /** earlier attempts the producer reports (spatial replay_count, AFC retry_count) */
  replayCount: number;
  /**
   * AFC: the tap's issues under the tap schema, as afcIssuesOf(payload) gives them, when normalizing already ran the
   * gate and its verdict holds for the stored payload (tap-schema.ts judgedAsStored); the triage rules ask for them.
   * Not stored.
   */
  tapIssues?: { field: string; entry: string }[];
  /** where a record pulled from a broker came from (lib/sources); absent for records POSTed or imported */
  origin?: PulledFrom | null;
  spatial: {
    analysis: SpatialAnalysis;
    repairedGeometry: JsonValue | null;
    /**
     * [west, south, east, north] in EPSG:4326 of the input geometry (repaired when input unusable); west > east
     * when it crosses the antimeridian (RFC 7946 §5.2), stored unwrapped (stored-box.ts)
     */
    bbox: [number, number, number, number] | null;
  } | null;
}

/** A pulled record's provenance as stored: its source's name, the broker's message id, the whole origin. */
export interface PulledFrom {
  source: string;
  messageId: string | null;
  origin: JsonValue;
}

export type NormalizeResult = { ok: true; record: NewDeadLetter } | { ok: false; errors: FieldError[] };

/**
 * The repair an analyst approved a spatial record with: the method and policy they saw previewed, and the SHA-256
 * of the geometry that repair delivers (canonical JSON). A replay uses exactly this and sends nothing else: a
 * different result at replay time sends the record back to review (lib/replay/engine/replay-repair.ts).
 */
export const ApprovedRepairSchema = z.strictObject({
  method: RepairMethodSchema,
  policy: RepairPolicySchema,
  digest: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex"),
  /** what the repair did: a valid geometry is sent as received whatever the method, so only "repaired" can differ */
  outcome: z.enum(["valid", "repaired"]),
  /** the approval acknowledged the repair's warnings (a large area change, a type change) */
  acknowledged: z.array(z.string()).optional(),
});
export type ApprovedRepair = z.infer<typeof ApprovedRepairSchema>;

/**
 * The repair a replay sent a spatial record with, kept on its replay item for good (replay_item.sent, without the
 * geometry): the settings, where they came from (the approval's pin, or the batch's setting for a record approved
 * without one), what the repair did, and the pin's digest and acknowledged warnings when it came from the approval.
 */
export const SentRepairSchema = z.strictObject({
  method: RepairMethodSchema,
  policy: RepairPolicySchema,
  from: z.enum(["approval", "batch"]),
  outcome: z.enum(["valid", "repaired"]),
  digest: z.string().optional(),
  acknowledged: z.array(z.string()).optional(),
});
export type SentRepair = z.infer<typeof SentRepairSchema>;
