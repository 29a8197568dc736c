import "server-only";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { appendAudit, type AuditInput } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import { approveWarning, TAP_FAILS_SCHEMA } from "./approve-warning";
import { countMatching } from "../query/facets";
import type { BulkBody, BulkResult } from "../contract/bulk";
import { AUDIT_ACTION, decide, reopenedClass } from "../decisions";
import type { DeadLetterStatus } from "../../vocabulary/record";
import type { FailureClass } from "../../vocabulary/record";
import { buildWhere, idsWhere, type SqlFragment } from "../query/where";
import type { RecordScope } from "../../scope/record-scope";
import type { ApprovedRepair, DeadLetterKind, SpatialAnalysis } from "@/lib/vocabulary/record";
import { analyzeOffThread } from "../ingest/analyze-off-thread";
import { getEnv } from "../../env";
import { pinRepairBy } from "./approved-repair";
import { repairWarnings } from "./repair-warnings";
import { compareIds } from "../../db/id-order";

// A decision on many records (POST /api/dead-letters/bulk): explicit ids, or every record matching a list filter
// — evaluated on the server, never by loading the rows into the browser. Applied in pages of PAGE rows, each its
// own transaction: lock the page's rows in id order (the same order everywhere, so two bulk runs cannot
// deadlock), re-check every row against the state machine under the lock, update the eligible ones and audit
// each. A record that is not eligible (already replayed, poison for approve…) is skipped and counted by reason.

export const PAGE = 500;

export interface BulkContext {
  actor: Actor;
  /** the records the deciding user may change (a job re-reads its starter's at every page) */
  scope: RecordScope;
  requestId: string;
  now: Date;
}

interface LockedRow {
  id: string;
  kind: DeadLetterKind;
  status: DeadLetterStatus;
  failure_class: FailureClass;
  class_reason: string | null;
  version: number;
  /** an AFC record's working payload (approving one that fails the tap schema is counted as a warning); null for spatial */
  tap: unknown;
  /** a spatial record's working payload and analysis, read for an approval only (it pins the analysed repair) */
  feature: unknown;
  analysis: SpatialAnalysis | null;
}

/** A warning every bulk approval counts: repairs whose area or type change needs the analyst's acknowledgement. */
export const REPAIR_NEEDS_ACK =
  "have a repair that changes the geometry's type or a large share of its area: approving them acknowledges it (see each record's page)";

/** The pin a bulk approval stores: the repair the record was analysed with (its source's default), as on its page. */
/** Whether `sel`'s action applies to `row` (the loop below decides again, and says why not). */
function decidable(row: LockedRow, sel: { action: BulkBody["action"]; reason?: string | null }): boolean {
  return decide({ status: row.status, failureClass: row.failure_class, classReason: row.class_reason }, sel.action, { reason: sel.reason })
    .ok;
}

async function bulkPin(row: LockedRow): Promise<ApprovedRepair | null> {
  if (row.kind !== "spatial" || row.feature === null || !row.analysis) return null;
  const warnings = repairWarnings(row.analysis, getEnv().REDRIVE_AREA_CHANGE_WARN).map((w) => w.message);
  // GEOS on a worker thread, record by record: a bulk job runs in the web server's process.
  const pinned = await pinRepairBy(analyzeOffThread, row.feature, { method: row.analysis.method, policy: row.analysis.policy }, warnings);
  return pinned.ok ? pinned.pin : null;
}

/** 409 when the user confirmed a different number of records than match now. */
export function checkExpectedCount(expected: number | undefined, matched: number): void {
  if (expected !== undefined && expected !== matched) {
    throw new AppError(
      "conflict",
      `${matched.toLocaleString("en")} records match now, not ${expected.toLocaleString("en")}: confirm again`,
      {
        issues: [{ path: "expectedCount", message: `is ${matched} now` }],
        details: { matched },
      },
    );
  }
}

/** The highest id now: records ingested after a bulk decision started are not part of what the user confirmed. */
export async function idCeiling(db: pg.Pool | pg.PoolClient): Promise<string> {
  return (await db.query<{ max: string | null }>("SELECT max(id)::text AS max FROM dead_letter")).rows[0]?.max ?? "0";
}

export interface PageOutcome {
  /** the rows locked (and decided on), in id order */
  rows: { id: string }[];
  updated: number;
  skippedReasons: Record<string, number>;
  /** approved but worth a second look (e.g. taps that still fail their schema), with counts */
  warnings: Record<string, number>;
}

/**
 * One page, inside the caller's transaction: lock the next PAGE rows of the selection after `after` (up to
 * `ceiling`) in id order, decide each under the lock, update and audit the eligible ones.
 */
export async function decidePage(
  client: pg.PoolClient,
  sel: { action: BulkBody["action"]; reason?: string | null; filter?: BulkBody["filter"]; ids: string[] | null },
  after: string,
  ceiling: string,
  ctx: BulkContext,
): Promise<PageOutcome> {
  const rows = await lockPage(client, ctx.scope, sel.filter ?? {}, sel.ids, after, ceiling, sel.action === "approve");
  const skippedReasons: Record<string, number> = {};
  const warnings: Record<string, number> = {};
  // Pins first, all of the page's at once: GEOS runs on the worker threads side by side, not on this one.
  const pins =
    sel.action === "approve"
      ? await Promise.all(rows.map((r) => (decidable(r, sel) ? bulkPin(r) : Promise.resolve(null))))
      : rows.map(() => null);
  const updates: { id: string; next: DeadLetterStatus; reclassed: ReturnType<typeof reopenedClass>; pin: ApprovedRepair | null }[] = [];
  const audit: AuditInput[] = [];
  for (const [i, row] of rows.entries()) {
    const d = decide({ status: row.status, failureClass: row.failure_class, classReason: row.class_reason }, sel.action, {
      reason: sel.reason,
    });
    if (!d.ok) {
      skippedReasons[d.message] = (skippedReasons[d.message] ?? 0) + 1;
      continue;
    }
    const warning = sel.action === "approve" ? approveWarning(row.kind, row.tap) : null;
    if (warning) warnings[warning] = (warnings[warning] ?? 0) + 1;
    const pin = pins[i] ?? null;
    if (pin?.acknowledged) warnings[REPAIR_NEEDS_ACK] = (warnings[REPAIR_NEEDS_ACK] ?? 0) + 1;
    const reclassed =
      sel.action === "reopen" ? reopenedClass(row.kind, { failureClass: row.failure_class, classReason: row.class_reason }) : null;
    updates.push({ id: row.id, next: d.next, reclassed, pin });
    audit.push({
      ...auditActor(ctx.actor, ctx.requestId),
      action: AUDIT_ACTION[sel.action],
      targetType: "dead_letter",
      targetId: row.id,
      reason: sel.reason ?? null,
      before: { status: row.status, version: row.version },
      after: { status: d.next, version: row.version + 1, bulk: true, ...(reclassed ?? {}), ...(pin ? { repair: pin } : {}) },
    });
  }
  if (updates.length) {
    await client.query(
      `UPDATE dead_letter d SET status = u.status, version = d.version + 1, updated_at = $3,
         failure_class = coalesce(u.cls, d.failure_class), class_reason = CASE WHEN u.cls IS NULL THEN d.class_reason ELSE u.cls_reason END,
         approved_repair = u.pin, decided_by_rule_id = NULL, decided_by_rule_version = NULL
       FROM unnest($1::bigint[], $2::"DeadLetterStatus"[], $4::"FailureClass"[], $5::text[], $6::jsonb[]) AS u(id, status, cls, cls_reason, pin)
       WHERE d.id = u.id`,
      [
        updates.map((u) => u.id),
        updates.map((u) => u.next),
        ctx.now,
        updates.map((u) => u.reclassed?.failureClass ?? null),
        updates.map((u) => u.reclassed?.classReason ?? null),
        updates.map((u) => (u.pin ? JSON.stringify(u.pin) : null)),
      ],
    );
    await appendAudit(client, audit, ctx.now);
  }
  return { rows, updated: updates.length, skippedReasons, warnings };
}

/**
 * Of the selected AFC records the state machine would approve, how many still fail the tap schema (the dry run's
 * warning). Reads those taps' payloads: the schema is checked where it is defined, not re-written in SQL.
 */
async function tapsFailingSchema(pool: pg.Pool, scope: RecordScope, ids: string[] | null, filter: BulkBody["filter"]): Promise<number> {
  const where = selection(scope, ids, filter);
  const { rows } = await pool.query<{
    status: DeadLetterStatus;
    failure_class: FailureClass;
    class_reason: string | null;
    payload: unknown;
  }>(
    `SELECT d.status, d.failure_class, d.class_reason, d.payload FROM dead_letter d
     WHERE ${where.text} AND d.kind = 'afc' AND d.failure_class <> 'poison' AND d.payload IS NOT NULL`,
    where.values,
  );
  return rows.filter(
    (r) =>
      decide({ status: r.status, failureClass: r.failure_class, classReason: r.class_reason }, "approve").ok &&
      approveWarning("afc", r.payload) !== null,
  ).length;
}

/**
 * Of the selected spatial records the state machine would approve, how many carry a repair whose area or type
 * change needs acknowledgement (repair-warnings.ts, the same rule as the record page). Reads only the analyses.
 */
async function repairsNeedingAck(pool: pg.Pool, scope: RecordScope, ids: string[] | null, filter: BulkBody["filter"]): Promise<number> {
  const where = selection(scope, ids, filter);
  const { rows } = await pool.query<{
    status: DeadLetterStatus;
    failure_class: FailureClass;
    class_reason: string | null;
    analysis: SpatialAnalysis;
  }>(
    `SELECT d.status, d.failure_class, d.class_reason, d.analysis FROM dead_letter d
     WHERE ${where.text} AND d.kind = 'spatial' AND d.failure_class <> 'poison' AND d.analysis->>'outcome' = 'repaired'`,
    where.values,
  );
  const threshold = getEnv().REDRIVE_AREA_CHANGE_WARN;
  return rows.filter(
    (r) =>
      decide({ status: r.status, failureClass: r.failure_class, classReason: r.class_reason }, "approve").ok &&
      repairWarnings(r.analysis, threshold).length > 0,
  ).length;
}

/** How many of the selected records are in each (status, class): what the state machine decides on. */
async function statusGroups(
  pool: pg.Pool,
  scope: RecordScope,
  ids: string[] | null,
  filter: BulkBody["filter"],
): Promise<{ status: DeadLetterStatus; failure_class: FailureClass; class_reason: string | null; n: number }[]> {
  const where = selection(scope, ids, filter);
  // The class reason too: a refusal names it ("poison records cannot be approved (missing idempotency key)…"), and
  // the dry run's reasons must read as the run's.
  const { rows } = await pool.query<{ status: DeadLetterStatus; failure_class: FailureClass; class_reason: string | null; n: number }>(
    `SELECT d.status::text AS status, d.failure_class::text AS failure_class, d.class_reason, count(*)::int AS n
     FROM dead_letter d WHERE ${where.text} GROUP BY 1, 2, 3`,
    where.values,
  );
  return rows;
}

/** The selected records, by id or by filter, within the scope of who decides. */
function selection(scope: RecordScope, ids: string[] | null, filter: BulkBody["filter"]): SqlFragment {
  if (!ids) return buildWhere(scope, filter ?? {});
  const values: unknown[] = [];
  return { text: idsWhere(scope, ids, values), values };
}

/**
 * Applies a bulk decision within the calling request. The route uses this for explicit ids (at most
 * MAX_BULK_IDS) and dry runs; a filter, which may match any number of records, runs as a job (bulk-jobs.ts)
 * through the same decidePage.
 */
export async function bulkAction(pool: pg.Pool, body: BulkBody & { dryRun?: boolean }, ctx: BulkContext): Promise<BulkResult> {
  const ids = body.ids ? [...new Set(body.ids)].sort(compareIds) : null;
  const matched = ids ? ids.length : await countMatching(pool, ctx.scope, body.filter ?? {});
  checkExpectedCount(body.expectedCount, matched);
  const result: BulkResult = { matched, updated: 0, skipped: 0, skippedReasons: {}, warnings: {} };
  const skip = (reason: string, n = 1) => {
    result.skipped += n;
    result.skippedReasons[reason] = (result.skippedReasons[reason] ?? 0) + n;
  };
  if (matched === 0) return result;
  if (body.dryRun) {
    // What the run would do, from the state machine per (status, class) of the matches; nothing is locked, so a
    // record changed meanwhile can still be skipped by the real run.
    for (const g of await statusGroups(pool, ctx.scope, ids, body.filter)) {
      const d = decide({ status: g.status, failureClass: g.failure_class, classReason: g.class_reason }, body.action, {
        reason: body.reason ?? null,
      });
      if (d.ok) result.updated += g.n;
      else skip(d.message, g.n);
    }
    const missing = ids ? ids.length - (result.updated + result.skipped) : 0;
    if (missing > 0) skip("no such dead letter", missing);
    if (body.action === "approve") {
      const failing = await tapsFailingSchema(pool, ctx.scope, ids, body.filter);
      if (failing > 0) result.warnings[TAP_FAILS_SCHEMA] = failing;
      const needAck = await repairsNeedingAck(pool, ctx.scope, ids, body.filter);
      if (needAck > 0) result.warnings[REPAIR_NEEDS_ACK] = needAck;
    }
    return result;
  }
  const ceiling = await idCeiling(pool);
  let after = "0";
  for (;;) {
    const page = await inTransaction(pool, (client) => decidePage(client, { ...body, ids }, after, ceiling, ctx));
    result.updated += page.updated;
    for (const [why, n] of Object.entries(page.skippedReasons)) skip(why, n);
    for (const [why, n] of Object.entries(page.warnings)) result.warnings[why] = (result.warnings[why] ?? 0) + n;
    if (ids) {
      // Ids in this page's range that were not found (or not locked because they vanished).
      const upto = page.rows.length < PAGE ? null : page.rows.at(-1)!.id;
      const expected = ids.filter((id) => BigInt(id) > BigInt(after) && (upto === null || BigInt(id) <= BigInt(upto)));
      const found = new Set(page.rows.map((r) => r.id));
      const missing = expected.filter((id) => !found.has(id)).length;
      if (missing) skip("no such dead letter", missing);
    }
    if (page.rows.length < PAGE) break;
    after = page.rows.at(-1)!.id;
  }
  return result;
}

async function lockPage(
  client: pg.PoolClient,
  scope: RecordScope,
  filter: NonNullable<BulkBody["filter"]>,
  ids: string[] | null,
  after: string,
  ceiling: string,
  approving = false,
): Promise<LockedRow[]> {
  const values: unknown[] = [];
  const where = ids ? idsWhere(scope, ids, values) : buildWhere(scope, filter, values).text;
  const { rows } = await client.query<LockedRow>(
    `SELECT d.id::text AS id, d.kind, d.status, d.failure_class, d.class_reason, d.version,
       CASE WHEN d.kind = 'afc' THEN d.payload END AS tap,
       CASE WHEN d.kind = 'spatial' AND ${approving} THEN d.payload END AS feature,
       CASE WHEN d.kind = 'spatial' AND ${approving} THEN d.analysis END AS analysis
     FROM dead_letter d
     WHERE ${where} AND d.id > $${values.push(after)}::bigint AND d.id <= $${values.push(ceiling)}::bigint
     ORDER BY d.id LIMIT ${PAGE} FOR UPDATE`,
    values,
  );
  return rows;
}
