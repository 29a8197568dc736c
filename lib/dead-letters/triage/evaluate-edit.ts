import "server-only";
import type pg from "pg";
import { classifyTap } from "../../afc/classify";
import { tapObservedAt } from "../../afc/tap-time";
import { validateTap } from "../../afc/tap-schema";
import { AppError } from "../../errors/app-error";
import { indexedTextProblem } from "../../db/column-limits";
import { analyzeOffThread } from "../ingest/analyze-off-thread";
import { geometryLimits } from "../../env";
import { geometryToJson } from "../../spatial/geojson";
import { DEFAULT_SOURCE_SETTINGS } from "../ingest/normalize";
import { identityChanges, identityRefusal } from "./identity-guard";
import type { FailureClass, SpatialAnalysis } from "../../vocabulary/record";
import type { JsonValue } from "@/lib/json/value";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// What an edited payload means for the record: its new failure class (poison is recomputed, see state.ts),
// and for spatial records the server's own verdict — GEOS validity, repair with the source's method and policy,
// repaired geometry and box — whatever the browser's live check said. The caller stores it under the row lock.

export interface EditSubject {
  kind: DeadLetterKind;
  source: string;
  idempotencyKey: string | null;
  payload: JsonValue | null;
  failureClass: FailureClass;
  classReason: string | null;
}

export interface EditOutcome {
  failureClass: FailureClass;
  classReason: string | null;
  /** AFC: the searchable id columns follow the payload (the key does not) */
  eventId?: string | null;
  deviceId?: string | null;
  /** AFC: when the edited tap was observed (UTC to the microsecond); null keeps the stored time */
  observedAt?: string | null;
  spatial?: { analysis: SpatialAnalysis; repairedGeometry: JsonValue | null; bbox: [number, number, number, number] | null };
  /** identity fields changed under a supervisor's override */
  overridden: string[];
}

const isObject = (v: JsonValue | null): v is { [key: string]: JsonValue } => typeof v === "object" && v !== null && !Array.isArray(v);

const idOf = (tap: { [key: string]: JsonValue }, field: string): string | null => {
  const v = tap[field];
  return typeof v === "string" && v.trim() !== "" ? v : null;
};

/**
 * Whether an edit overrides the AFC identity rule ("refuse it unless a supervisor overrides with a reason"):
 * explicitly (`overrideIdentity: true`), or implied when someone allowed to override sends a reason and does not
 * say `overrideIdentity: false` — the issue's body is `{action, version, reason?, payload?}`, so a supervisor's
 * edit with a reason is the override. An analyst's reason never is one.
 */
export function identityOverride(
  body: { overrideIdentity?: boolean | undefined; reason?: string | undefined },
  canOverride: boolean,
): boolean {
  if (body.overrideIdentity !== undefined) return body.overrideIdentity;
  return canOverride && body.reason !== undefined && body.reason.trim() !== "";
}

export async function evaluateEdit(
  db: pg.PoolClient,
  subject: EditSubject,
  payload: JsonValue,
  opts: { overrideIdentity: boolean; canOverrideIdentity: boolean },
): Promise<EditOutcome> {
  if (!isObject(payload)) {
    const what = subject.kind === "afc" ? "an AFC tap" : "a GeoJSON Feature";
    throw new AppError("validation_failed", `payload: must be ${what} (a JSON object)`, {
      issues: [{ path: "payload", message: `must be ${what} (a JSON object)` }],
    });
  }
  if (subject.kind === "spatial" && payload.type !== "Feature") {
    // An edit is the analyst's repair: a payload that is not a Feature at all (`{}`, a bare geometry) is a slip
    // to refuse, not a record to turn into poison (a bad *geometry* inside a Feature still saves, as poison).
    const message = `must be a GeoJSON Feature ("type": "Feature"), got type ${JSON.stringify(payload.type ?? null)}`;
    throw new AppError("validation_failed", `payload.type: ${message}`, { issues: [{ path: "payload.type", message }] });
  }
  return subject.kind === "afc" ? evaluateTap(subject, payload, opts) : evaluateFeature(db, subject, payload);
}

function evaluateTap(
  subject: EditSubject,
  tap: { [key: string]: JsonValue },
  opts: { overrideIdentity: boolean; canOverrideIdentity: boolean },
): EditOutcome {
  const changed = identityChanges(subject.payload, tap);
  if (changed.length > 0 && !opts.overrideIdentity) {
    const message = identityRefusal(changed, subject.idempotencyKey);
    throw new AppError("validation_failed", `payload.${changed[0]}: ${message}`, {
      issues: changed.map((f) => ({ path: `payload.${f}`, message })),
      details: { identityFields: changed },
    });
  }
  if (changed.length > 0 && !opts.canOverrideIdentity) {
    throw new AppError("forbidden", "overriding identity fields needs the permission dead_letters:override_identity (supervisors)", {
      details: { permission: "dead_letters:override_identity", identityFields: changed },
    });
  }
  const identity = classifyTap(tap);
  let failureClass: FailureClass = subject.failureClass;
  let classReason = subject.classReason;
  const gate = validateTap(tap);
  if (identity.failureClass === "poison") {
    failureClass = "poison";
    classReason = identity.classReason;
  } else if (gate.ok) {
    failureClass = "transient_schema";
    classReason = "edited into validity";
  } else if (subject.failureClass !== "poison") {
    failureClass = "transient_schema";
    // Said of this edit, not kept from an earlier one ("edited into validity" next to a failing schema).
    classReason = `edited; still fails the tap schema: ${gate.reason}`;
  }
  const eventId = idOf(tap, "event_id");
  const deviceId = idOf(tap, "device_id");
  for (const [field, value] of [
    ["event_id", eventId],
    ["device_id", deviceId],
  ] as const) {
    const problem = value === null ? null : indexedTextProblem(value);
    if (problem)
      throw new AppError("validation_failed", `payload.${field}: ${problem}`, { issues: [{ path: `payload.${field}`, message: problem }] });
  }
  return { failureClass, classReason, eventId, deviceId, observedAt: tapObservedAt(tap)?.exact ?? null, overridden: changed };
}

async function sourceSettings(db: pg.PoolClient, source: string) {
  const { rows } = await db.query<{ repair_method: string; repair_policy: string }>(
    "SELECT repair_method, repair_policy FROM source_config WHERE source = $1",
    [source],
  );
  const row = rows[0];
  const method = row?.repair_method === "structure" ? "structure" : DEFAULT_SOURCE_SETTINGS.method;
  const policy =
    row?.repair_policy === "largest-part" || row?.repair_policy === "drop" ? row.repair_policy : DEFAULT_SOURCE_SETTINGS.policy;
  return { method, policy } as const;
}

async function evaluateFeature(db: pg.PoolClient, subject: EditSubject, feature: { [key: string]: JsonValue }): Promise<EditOutcome> {
  const settings = await sourceSettings(db, subject.source);
  // The stored payload is already in EPSG:4326 (ingest reprojected it), and so is what the analyst edits.
  const result = await analyzeOffThread(feature.geometry ?? null, { ...settings, crs: "EPSG:4326", limits: geometryLimits() });
  const { analysis } = result;
  const poison: string[] = [];
  if (subject.idempotencyKey === null) poison.push("missing idempotency key");
  if (feature.type !== "Feature") poison.push(`feature is not a GeoJSON Feature (type ${JSON.stringify(feature.type ?? null)})`);
  if (analysis.outcome === "dropped") poison.push(analysis.drop_reason ?? analysis.reason ?? "geometry dropped");
  return {
    failureClass: poison.length ? "poison" : "transient",
    classReason: poison.length ? poison.join("; ") : `edited: geometry ${analysis.outcome}`,
    spatial: {
      analysis,
      repairedGeometry: analysis.outcome === "repaired" && result.repaired ? geometryToJson(result.repaired) : null,
      bbox: result.bbox,
    },
    overridden: [],
  };
}
