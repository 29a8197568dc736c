import "server-only";
import type { RecordScope } from "../../scope/record-scope";
import { assertRecordVisible } from "../query/visible-record";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { containsMaskPlaceholder } from "../../masking/mask";
import { restoreMasked } from "../../masking/restore";
import type { MaskRules } from "../../masking/rules";
import { appendAudit, type AuditInput } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import { notFound, readDetailRow, readFailures, readLightDetailRow, toDetail, type DetailRow } from "../query/detail";
import { evaluateEdit, identityOverride, type EditOutcome } from "./evaluate-edit";
import { payloadDelta } from "../query/payload-diff";
import type { ActionBody, ChangedBy } from "../contract/decision";
import type { DeadLetterDetail } from "../contract/detail";
import { AUDIT_ACTION, decide, reopenedClass } from "../decisions";
import { storedBox } from "../store/stored-box";
import type { JsonValue } from "@/lib/json/value";
import type { ApprovedRepair } from "@/lib/vocabulary/record";
import { analyzeOffThread } from "../ingest/analyze-off-thread";
import { pinRepairBy } from "./approved-repair";
import type { ApproveRepair } from "../contract/decision";

// One triage decision on one record (POST /api/dead-letters/{id}/actions): lock the row, check the version the
// analyst saw and the state machine under the lock, write the change and its audit event in one transaction.
// A stale version answers 409 with the record as it is now, so the UI can show what changed instead of
// overwriting someone else's decision. raw_envelope is never written (a trigger would refuse it anyway).

export interface ActionContext {
  actor: Actor;
  /** the deciding user's records: another team's record answers 404 */
  scope: RecordScope;
  requestId: string;
  now: Date;
  /** the caller holds dead_letters:override_identity */
  canOverrideIdentity: boolean;
  /**
   * The masking the caller saw the record through (lib/masking): an edit made from that view gets the values it
   * left as shown back from the locked row, and is refused where a placeholder was changed.
   */
  maskRules?: MaskRules;
}

/** The submitted payload with masked values left as shown put back (restore.ts), or a 422 naming each changed one. */
function unmaskEdit(submitted: JsonValue, stored: JsonValue | null, rules: MaskRules | undefined): JsonValue {
  if (!rules || !containsMaskPlaceholder(submitted)) return submitted;
  const { payload, changed } = restoreMasked(submitted, stored, rules);
  if (changed.length === 0) return payload;
  const message = "holds a masked value (•••) that is not the one shown: type the full value, leave it as shown, or remove the field";
  const issues = changed.map((path) => ({ path: ["payload", ...path].join("."), message }));
  throw new AppError("validation_failed", `${issues[0]!.path}: ${message}`, { issues });
}

/**
 * An identity override replaced the tap's event_id or device_id: keep the value the record was captured with,
 * so an investigator looking it up by that value (the device on the gate's log, say) still finds it.
 */
async function keepReplacedIdentifiers(
  client: pg.PoolClient,
  id: string,
  row: Pick<DetailRow, "event_id" | "device_id">,
  next: { eventId?: string | null; deviceId?: string | null },
  now: Date,
): Promise<void> {
  const replaced = (
    [
      ["event_id", row.event_id, next.eventId],
      ["device_id", row.device_id, next.deviceId],
    ] as const
  ).filter(([, before, after]) => after !== undefined && before !== null && before !== after);
  if (replaced.length === 0) return;
  await client.query(
    `INSERT INTO identity_alias (field, value, dead_letter_id, replaced_at)
     SELECT field, value, $3, $4 FROM unnest($1::text[], $2::text[]) AS t(field, value)
     ON CONFLICT DO NOTHING`,
    [replaced.map(([field]) => field), replaced.map(([, before]) => before), id, now],
  );
}

async function current(client: pg.PoolClient, row: DetailRow): Promise<DeadLetterDetail> {
  return toDetail(row, await readFailures(client, row.id));
}

/** Who made the record's latest audited change (a 409 names them rather than "someone"); null when unknown. */
async function lastChange(client: pg.PoolClient, id: string): Promise<ChangedBy | null> {
  const { rows } = await client.query<{ email: string | null; role: string | null; action: string; at: Date }>(
    `SELECT actor_email AS email, actor_role AS role, action, at FROM audit_event
     WHERE target_type = 'dead_letter' AND target_id = $1 ORDER BY id DESC LIMIT 1`,
    [id],
  );
  const r = rows[0];
  return r ? { email: r.email, role: r.role, action: r.action, at: r.at.toISOString() } : null;
}

/**
 * The repair an approval pins on a spatial record: the one the analyst chose on the record page, else the one the
 * record was analysed with (its source's default). A chosen repair that delivers nothing is refused (the analyst
 * would approve a record the replay drops); the source's default that delivers nothing pins nothing, as before.
 * A digest that is not what this repair gives now (the payload or GEOS changed since the preview) is a 409.
 */
async function approvalPin(row: DetailRow, chosen: ApproveRepair | undefined): Promise<ApprovedRepair | null> {
  if (row.kind !== "spatial" || row.payload === null) return null;
  const settings = chosen ?? (row.analysis ? { method: row.analysis.method, policy: row.analysis.policy } : null);
  if (!settings) return null;
  const pinned = await pinRepairBy(analyzeOffThread, row.payload, settings, chosen?.acknowledged ?? []);
  if (!pinned.ok) {
    if (!chosen) return null;
    const message = `the ${settings.method} / ${settings.policy} repair delivers nothing: ${pinned.reason}`;
    throw new AppError("validation_failed", `repair: ${message}`, { issues: [{ path: "repair", message }] });
  }
  if (chosen?.digest && chosen.digest !== pinned.pin.digest) {
    const message = `gives a different geometry now than the one previewed (digest ${pinned.pin.digest.slice(0, 12)}…): preview it again`;
    throw new AppError("conflict", `repair: ${message}`, { issues: [{ path: "repair.digest", message }] });
  }
  return pinned.pin;
}

/**
 * The record after the decision. `heavy`: it is past HEAVY_DETAIL_BYTES and was read without its heavy columns
 * (payload, envelope, analysis… null here): the caller answers it off this thread (lib/api/off-thread-reads.ts).
 */
export type ActionOutcome = DeadLetterDetail & { heavy?: true };

/** Decisions that need the record's status and class only, never its payload. */
const LIGHT_ACTIONS: ReadonlySet<ActionBody["action"]> = new Set(["quarantine", "reopen"]);

export async function applyAction(pool: pg.Pool, id: string, body: ActionBody, ctx: ActionContext): Promise<ActionOutcome> {
  const light = LIGHT_ACTIONS.has(body.action);
  return inTransaction(pool, async (client) => {
    await assertRecordVisible(client, ctx.scope, id);
    const row = light ? await readLightDetailRow(client, id, true) : await readDetailRow(client, id, true);
    if (!row) throw notFound(id);
    if (row.version !== body.version) {
      throw new AppError(
        "conflict",
        `dead letter ${id} changed since you loaded it (your version ${body.version}, now ${row.version}): review the changes and decide again`,
        {
          issues: [{ path: "version", message: `is ${row.version} now` }],
          details: { current: await current(client, row), changedBy: await lastChange(client, id) },
        },
      );
    }
    const subject = { status: row.status, failureClass: row.failure_class, classReason: row.class_reason };
    const decision = decide(subject, body.action, { reason: body.reason });
    if (!decision.ok) {
      throw new AppError(decision.code, `${decision.field}: ${decision.message}`, {
        issues: [{ path: decision.field, message: decision.message }],
        ...(decision.code === "conflict" ? { details: { current: await current(client, row) } } : {}),
      });
    }
    const audit: AuditInput[] = [];
    const base = {
      ...auditActor(ctx.actor, ctx.requestId),
      targetType: "dead_letter",
      targetId: id,
    };
    const before = { status: row.status, version: row.version, failureClass: row.failure_class };
    const after = { status: decision.next, version: row.version + 1 };
    if (body.action === "edit") {
      const payload = unmaskEdit(body.payload, row.payload, ctx.maskRules);
      const outcome = await evaluateEdit(
        client,
        {
          kind: row.kind,
          source: row.source,
          idempotencyKey: row.idempotency_key,
          payload: row.payload,
          failureClass: row.failure_class,
          classReason: row.class_reason,
        },
        payload,
        { overrideIdentity: identityOverride(body, ctx.canOverrideIdentity), canOverrideIdentity: ctx.canOverrideIdentity },
      );
      const delta = payloadDelta(row.payload, payload);
      if (delta === undefined) {
        throw new AppError("validation_failed", "payload: is unchanged", { issues: [{ path: "payload", message: "is unchanged" }] });
      }
      await writeEdit(client, id, payload, decision.next, outcome, ctx.now);
      await keepReplacedIdentifiers(client, id, row, outcome, ctx.now);
      audit.push({
        ...base,
        action: AUDIT_ACTION.edit,
        reason: body.reason ?? null,
        diff: delta,
        before: { ...before, classReason: row.class_reason, ...(row.analysis ? { outcome: row.analysis.outcome } : {}) },
        after: {
          ...after,
          failureClass: outcome.failureClass,
          classReason: outcome.classReason,
          ...(outcome.spatial ? { outcome: outcome.spatial.analysis.outcome } : {}),
        },
      });
      if (outcome.overridden.length > 0) {
        audit.push({
          ...base,
          action: "dead_letter.identity_overridden",
          reason: body.reason ?? null,
          after: { fields: outcome.overridden, idempotencyKey: row.idempotency_key },
        });
      }
    } else {
      const reclassed = body.action === "reopen" ? reopenedClass(row.kind, subject) : null;
      // Only an approval pins a repair; any other decision takes the record out of approved, and its pin with it.
      const pin = body.action === "approve" ? await approvalPin(row, body.repair) : null;
      await client.query(
        `UPDATE dead_letter SET status = $2, version = version + 1, updated_at = $3,
           failure_class = coalesce($4::"FailureClass", failure_class), class_reason = CASE WHEN $4 IS NULL THEN class_reason ELSE $5 END,
           approved_repair = $6::jsonb, decided_by_rule_id = NULL, decided_by_rule_version = NULL
         WHERE id = $1`,
        [id, decision.next, ctx.now, reclassed?.failureClass ?? null, reclassed?.classReason ?? null, pin ? JSON.stringify(pin) : null],
      );
      const decided = reclassed ? { ...after, failureClass: reclassed.failureClass, classReason: reclassed.classReason } : after;
      audit.push({
        ...base,
        action: AUDIT_ACTION[body.action],
        reason: body.reason ?? null,
        before,
        after: pin ? { ...decided, repair: pin } : decided,
      });
    }
    await appendAudit(client, audit, ctx.now);
    const updated = await readLightDetailRow(client, id);
    if (!updated) throw notFound(id);
    const { heavy, ...rest } = updated;
    const detail = await current(client, rest);
    return heavy ? { ...detail, heavy } : detail;
  });
}

async function writeEdit(client: pg.PoolClient, id: string, payload: unknown, status: string, o: EditOutcome, now: Date): Promise<void> {
  const box = o.spatial?.bbox ? storedBox(o.spatial.bbox) : null;
  await client.query(
    `UPDATE dead_letter SET payload = $2, status = $3, failure_class = $4, class_reason = $5,
       event_id = CASE WHEN kind = 'afc' THEN $6 ELSE event_id END,
       device_id = CASE WHEN kind = 'afc' THEN $7 ELSE device_id END,
       entity_key = CASE WHEN kind = 'afc' THEN $7 ELSE entity_key END,
       -- A tap's observation time is in its payload: an edited tap_timestamp moves it (ordering, lookup, entity state).
       observed_at = CASE WHEN kind = 'afc' AND $15::text IS NOT NULL THEN $15::timestamptz ELSE observed_at END,
       analysis = CASE WHEN kind = 'spatial' THEN $8::jsonb ELSE analysis END,
       approved_repair = NULL, decided_by_rule_id = NULL, decided_by_rule_version = NULL,
       repaired_geometry = CASE WHEN kind = 'spatial' THEN $9::jsonb ELSE repaired_geometry END,
       bbox = CASE WHEN kind <> 'spatial' THEN bbox WHEN $10::float8 IS NULL THEN NULL
                   ELSE box(point($10, $11), point($12, $13)) END,
       version = version + 1, updated_at = $14
     WHERE id = $1`,
    [
      id,
      JSON.stringify(payload),
      status,
      o.failureClass,
      o.classReason,
      o.eventId ?? null,
      o.deviceId ?? null,
      o.spatial ? JSON.stringify(o.spatial.analysis) : null,
      o.spatial?.repairedGeometry == null ? null : JSON.stringify(o.spatial.repairedGeometry),
      box?.[0] ?? null,
      box?.[1] ?? null,
      box?.[2] ?? null,
      box?.[3] ?? null,
      now,
      o.observedAt ?? null,
    ],
  );
}
