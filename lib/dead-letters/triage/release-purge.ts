import "server-only";
import type pg from "pg";
import { appendAudit, type AuditInput } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import { checkExpectedCount } from "./bulk-action";
import { decide, reopenedClass } from "../decisions";
import type { FailureClass } from "../../vocabulary/record";
import type { JsonValue } from "@/lib/json/value";
import { buildWhere, idsWhere } from "../query/where";
import type { RecordScope } from "../../scope/record-scope";
import { maskJson, maskText } from "../../masking/mask";
import type { MaskRules } from "../../masking/rules";
import type { QuarantineBody } from "../contract/quarantine";
import type { DeadLetterKind, DeadLetterStatus } from "@/lib/vocabulary/record";
import { compareIds } from "../../db/id-order";

// Releasing quarantined records back to triage, and purging them. Both act on quarantined records only, in
// pages of PAGE rows, each page its own transaction: lock the rows in id order (the order bulk-action.ts and the
// replay engine use, so none of them can deadlock with another), re-check the status under the lock, write,
// audit each record. Records that are not (or no longer) quarantined are skipped and counted.
//
// Purge removes the evidence on purpose (card data a producer should never have sent, say): payload, raw
// envelope and repaired geometry become NULL (the keep-evidence trigger allows NULL and nothing else), the
// identity, hash and history stay. The audit event keeps what was purged — masked, always, whoever purges:
// the audit trail is append-only, so anything unmasked written there could never be removed again.

export const PAGE = 500;

export interface QuarantineContext {
  actor: Actor;
  /** the records the user may release or purge (their teams') */
  scope: RecordScope;
  requestId: string;
  now: Date;
}

export interface QuarantineResult {
  released?: number;
  purged?: number;
  skipped: number;
}

interface LockedRow {
  id: string;
  kind: DeadLetterKind;
  status: DeadLetterStatus;
  failure_class: FailureClass;
  class_reason: string | null;
  version: number;
  payload: JsonValue | null;
  raw_envelope: string | null;
}

type PageAction = (client: pg.PoolClient, rows: LockedRow[]) => Promise<number>;

/**
 * Runs `act` on the records `body` names, a page at a time under row locks. `withBodies`: the rows carry payload
 * and raw envelope (a purge keeps them, masked, in its audit event); a release reads neither.
 */
async function inPages(
  pool: pg.Pool,
  scope: RecordScope,
  body: QuarantineBody,
  withBodies: boolean,
  act: PageAction,
): Promise<{ done: number; skipped: number }> {
  const ids = body.ids ? [...new Set(body.ids)].sort(compareIds) : null;
  // Records quarantined after the request started are not part of what the user saw.
  const ceiling = (await pool.query<{ max: string | null }>("SELECT max(id)::text AS max FROM dead_letter")).rows[0]?.max ?? "0";
  if (body.filter && body.expectedCount !== undefined) {
    // The count the user confirmed (the group's, on /quarantine): records quarantined or released since differ.
    const values: unknown[] = [];
    const where = buildWhere(scope, { ...body.filter, status: ["quarantined"] }, values).text;
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM dead_letter d WHERE ${where}`, values);
    checkExpectedCount(body.expectedCount, rows[0]?.n ?? 0);
  }
  let after = "0";
  let done = 0;
  let seen = 0;
  for (;;) {
    const rows = await inTransaction(pool, async (client) => {
      const values: unknown[] = [];
      const where = ids
        ? idsWhere(scope, ids, values)
        : buildWhere(scope, { ...(body.filter ?? {}), status: ["quarantined"] }, values).text;
      const { rows: page } = await client.query<LockedRow>(
        `SELECT d.id::text AS id, d.kind, d.status, d.failure_class, d.class_reason, d.version,
           ${withBodies ? "d.payload, d.raw_envelope" : "NULL AS payload, NULL AS raw_envelope"}
         FROM dead_letter d WHERE ${where} AND d.id > $${values.push(after)}::bigint AND d.id <= $${values.push(ceiling)}::bigint
         ORDER BY d.id LIMIT ${PAGE} FOR UPDATE`,
        values,
      );
      done += await act(
        client,
        page.filter((r) => r.status === "quarantined"),
      );
      return page;
    });
    seen += rows.length;
    if (rows.length < PAGE) break;
    after = rows.at(-1)!.id;
  }
  // ids mode: every id asked for that was not acted on (missing, or not quarantined) is skipped
  return { done, skipped: (ids ? ids.length : seen) - done };
}

function base(ctx: QuarantineContext, id: string) {
  return {
    ...auditActor(ctx.actor, ctx.requestId),
    targetType: "dead_letter",
    targetId: id,
  };
}

/** Quarantined → pending (the triage state machine's reopen), with the reason on each record's audit event. */
export async function releaseQuarantined(pool: pg.Pool, body: QuarantineBody, ctx: QuarantineContext): Promise<QuarantineResult> {
  const { done, skipped } = await inPages(pool, ctx.scope, body, false, async (client, rows) => {
    const eligible = rows.filter(
      (r) => decide({ status: r.status, failureClass: r.failure_class, classReason: r.class_reason }, "reopen").ok,
    );
    if (eligible.length === 0) return 0;
    // Delivery poison (the replay gave up) goes back to its transient class: released, the record can be replayed.
    const reclassed = eligible.map((r) => reopenedClass(r.kind, { failureClass: r.failure_class, classReason: r.class_reason }));
    await client.query(
      `UPDATE dead_letter d SET status = 'pending', version = d.version + 1, updated_at = $2,
         decided_by_rule_id = NULL, decided_by_rule_version = NULL, failure_class = coalesce(u.cls, d.failure_class), class_reason = CASE WHEN u.cls IS NULL THEN d.class_reason ELSE u.cls_reason END
       FROM unnest($1::bigint[], $3::"FailureClass"[], $4::text[]) AS u(id, cls, cls_reason)
       WHERE d.id = u.id`,
      [eligible.map((r) => r.id), ctx.now, reclassed.map((c) => c?.failureClass ?? null), reclassed.map((c) => c?.classReason ?? null)],
    );
    const audit: AuditInput[] = eligible.map((r, i) => ({
      ...base(ctx, r.id),
      action: "dead_letter.released",
      reason: body.reason,
      before: { status: r.status, version: r.version },
      after: {
        status: "pending",
        version: r.version + 1,
        ...(reclassed[i] ? { failureClass: reclassed[i].failureClass, classReason: reclassed[i].classReason } : {}),
      },
    }));
    await appendAudit(client, audit, ctx.now);
    return eligible.length;
  });
  return { released: done, skipped };
}

/**
 * Quarantined → purged: the bodies go, the identity and timeline stay; `rules` mask what the audit keeps. The
 * bodies are read, masked and written to the audit trail whole: POST /api/quarantine/purge runs this off the
 * request thread (lib/api/off-thread-reads.ts).
 */
export async function purgeQuarantined(
  pool: pg.Pool,
  body: QuarantineBody,
  ctx: QuarantineContext & { rules: MaskRules },
): Promise<QuarantineResult> {
  const { done, skipped } = await inPages(pool, ctx.scope, body, true, async (client, rows) => {
    if (rows.length === 0) return 0;
    await client.query(
      `UPDATE dead_letter SET status = 'purged', payload = NULL, raw_envelope = NULL, repaired_geometry = NULL,
         version = version + 1, updated_at = $2, decided_by_rule_id = NULL, decided_by_rule_version = NULL
       WHERE id = ANY($1::bigint[])`,
      [rows.map((r) => r.id), ctx.now],
    );
    const audit: AuditInput[] = rows.map((r) => ({
      ...base(ctx, r.id),
      action: "dead_letter.purged",
      reason: body.reason,
      before: {
        status: r.status,
        version: r.version,
        payload: r.payload === null ? null : maskJson(r.payload, ctx.rules),
        rawEnvelope: r.raw_envelope === null ? null : maskText(r.raw_envelope, ctx.rules),
      },
      after: { status: "purged", version: r.version + 1 },
    }));
    await appendAudit(client, audit, ctx.now);
    return rows.length;
  });
  return { purged: done, skipped };
}
