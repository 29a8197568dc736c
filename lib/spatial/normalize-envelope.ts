// Spatial dead-letter envelope (what a producer's Python DLQ handler stored) → NewDeadLetter.
//
// Rejected (field errors) only when the envelope itself is unusable: not an object, kind ≠ "spatial",
// observed_at missing/unparseable, feature not an object, or a CRS we cannot reproject from. Everything else is
// stored, and what makes a record unreplayable (no idempotency key, unusable geometry, replay budget spent)
// makes it poison with the reason. Unknown top-level keys are allowed: producers add bookkeeping fields and the
// record is kept verbatim in rawEnvelope anyway.
import { isLosslessNumber } from "lossless-json";
import * as z from "zod";
import { isJsonObject, toPlainJson } from "../json/lossless";
import { epochSecondsSchema, parseProducerInstant, type Instant } from "../time/parse-time";
import type { FieldError, NewDeadLetter, NormalizeResult, RepairMethod, RepairPolicy } from "@/lib/vocabulary/record";
import type { JsonValue } from "@/lib/json/value";
import { analyzeGeometry } from "./analyze";
import { resolveCrs } from "./crs";
import { geometryToJson } from "./geojson";
import type { Geos } from "./geos";
import type { GeometryLimits } from "./geometry-limits";

/** A record the producer has replayed this many times is not replayed again automatically. */
export const MAX_REPLAYS = 3;
export const DEFAULT_SPATIAL_SOURCE = "unknown";
export const UNKNOWN_FAILURE_REASON = "unknown";

const numberLike = z
  .union([z.custom<number>((v) => typeof v === "number"), z.custom<{ value: string }>(isLosslessNumber)])
  .transform((v) => (typeof v === "number" ? v : parseFloat(v.value)));

const epochSeconds = numberLike.pipe(epochSecondsSchema);

// RFC 3339 (either case, "T" or a space); a timestamp without an offset (Python's naive datetime.isoformat())
// is read as UTC.
const rfc3339 = z.string().transform((s, ctx): Instant => {
  const instant = parseProducerInstant(s);
  if (instant) return instant;
  ctx.addIssue({ code: "custom", message: "must be an RFC 3339 timestamp such as 2025-11-29T12:00:00Z" });
  return z.NEVER;
});

/** Picks the branch by JSON type so the message says what is wrong with the value given, not with both forms. */
const observedAt = z.unknown().transform((value, ctx): Instant => {
  const branch = typeof value === "string" ? rfc3339 : typeof value === "number" || isLosslessNumber(value) ? epochSeconds : null;
  if (!branch) {
    ctx.addIssue({
      code: "custom",
      message: value === undefined ? "is required" : "must be epoch seconds (number) or an RFC 3339 timestamp (string)",
    });
    return z.NEVER;
  }
  const parsed = branch.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message });
  return z.NEVER;
});

export const spatialEnvelopeSchema = z.looseObject({
  kind: z.literal("spatial"),
  source: z.unknown().optional(),
  idempotency_key: z.unknown().optional(),
  observed_at: observedAt,
  feature: z.custom<Record<string, unknown>>(isJsonObject, "must be a GeoJSON Feature object"),
  dead_letter_reason: z.unknown().optional(),
  replay_count: z.unknown().optional(),
  crs: z.unknown().optional(),
  source_message_id: z.unknown().optional(),
  message_id: z.unknown().optional(),
});

export interface SpatialContext {
  now: Date;
  geos: Geos;
  method: RepairMethod;
  policy: RepairPolicy;
  /** feature property holding the entity key, when feature.id is not it */
  entityProperty?: string;
  /** a geometry past these is poison without GEOS (analyze.ts); default DEFAULT_GEOMETRY_LIMITS */
  limits?: GeometryLimits;
}

/** A scalar as text: strings verbatim, numbers by their lexeme (lossless) so "007"-style ids stay exact. */
function asText(value: unknown): string | null {
  if (typeof value === "string") return value === "" ? null : value;
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return String(value);
  return null;
}

function replayCountOf(value: unknown): { count: number; problem: string | null } {
  if (value === undefined || value === null) return { count: 0, problem: null };
  const n = typeof value === "number" ? value : isLosslessNumber(value) ? Number(value.value) : NaN;
  if (Number.isInteger(n) && n >= 0) return { count: n, problem: null };
  // Without a trustworthy count the replay budget cannot be enforced, so the record must not auto-replay.
  return { count: 0, problem: `invalid replay_count ${JSON.stringify(toPlainJson(value))} (expected a non-negative integer)` };
}

function entityKeyOf(feature: Record<string, unknown>, property: string | undefined): string | null {
  if (property) {
    const properties = feature.properties;
    const value = isJsonObject(properties) ? asText(properties[property]) : null;
    if (value !== null) return value;
  }
  return asText(feature.id);
}

function failureReasonOf(value: unknown): string {
  if (value === undefined || value === null || value === "") return UNKNOWN_FAILURE_REASON;
  // Some handlers store the exception as an object; keep its JSON text rather than lose it.
  return typeof value === "string" ? value : JSON.stringify(toPlainJson(value));
}

/** The feature as plain JSON with its geometry replaced (the parsed, reprojected one when available). */
function payloadOf(feature: Record<string, unknown>, geometry: JsonValue): JsonValue {
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(feature)) {
    // Skipping the raw geometry avoids converting a 100k-vertex coordinate array only to replace it.
    out[key] = key === "geometry" ? geometry : toPlainJson(feature[key]);
  }
  if (!("geometry" in out)) out.geometry = geometry;
  return out;
}

function issuesToErrors(issues: z.core.$ZodIssue[]): FieldError[] {
  return issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)",
    message: issue.message,
  }));
}

/**
 * Normalize one spatial envelope. `value` is the parsed record (lossless-json LosslessNumbers or plain numbers),
 * `rawText` its exact text. Pure apart from GEOS: the clock comes in as ctx.now.
 */
export function normalizeSpatialEnvelope(value: unknown, rawText: string, ctx: SpatialContext): NormalizeResult {
  if (!isJsonObject(value)) return { ok: false, errors: [{ path: "(root)", message: "must be a JSON object" }] };
  const parsed = spatialEnvelopeSchema.safeParse(value);
  const crs = resolveCrs(value.crs);
  const errors = parsed.success ? [] : issuesToErrors(parsed.error.issues);
  if (!crs.ok) errors.push({ path: "crs", message: crs.message });
  if (!parsed.success || !crs.ok) return { ok: false, errors };
  const envelope = parsed.data;
  const { feature } = envelope;

  const result = analyzeGeometry(ctx.geos, feature.geometry, {
    method: ctx.method,
    policy: ctx.policy,
    crs: crs.declared,
    ...(ctx.limits ? { limits: ctx.limits } : {}),
  });
  const { analysis } = result;
  const idempotencyKey = asText(envelope.idempotency_key);
  const replay = replayCountOf(envelope.replay_count);

  const poison: string[] = [];
  if (idempotencyKey === null) poison.push("missing idempotency key");
  if (replay.problem) poison.push(replay.problem);
  else if (replay.count >= MAX_REPLAYS) poison.push(`replayed ${replay.count} times`);
  if (feature.type !== "Feature")
    poison.push(`feature is not a GeoJSON Feature (type ${JSON.stringify(toPlainJson(feature.type ?? null))})`);
  if (analysis.outcome === "dropped") poison.push(analysis.drop_reason ?? analysis.reason ?? "geometry dropped");

  const geometry = result.normalized ? geometryToJson(result.normalized) : toPlainJson(feature.geometry ?? null);
  const record: NewDeadLetter = {
    kind: "spatial",
    source: asText(envelope.source) ?? DEFAULT_SPATIAL_SOURCE,
    idempotencyKey,
    entityKey: entityKeyOf(feature, ctx.entityProperty),
    eventId: null,
    deviceId: null,
    sourceMessageId: asText(envelope.source_message_id) ?? asText(envelope.message_id),
    observedAt: envelope.observed_at.date,
    observedAtExact: envelope.observed_at.exact,
    firstSeenAt: ctx.now,
    rawEnvelope: rawText,
    payload: payloadOf(feature, geometry),
    failureReason: failureReasonOf(envelope.dead_letter_reason),
    failureClass: poison.length > 0 ? "poison" : "transient",
    classReason: poison.length > 0 ? poison.join("; ") : analysis.outcome === "repaired" ? "geometry repaired" : "geometry valid",
    replayCount: replay.count,
    spatial: {
      analysis,
      repairedGeometry: analysis.outcome === "repaired" && result.repaired ? geometryToJson(result.repaired) : null,
      bbox: result.bbox,
    },
  };
  return { ok: true, record };
}
