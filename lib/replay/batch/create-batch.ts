import "server-only";
import { freshenStatistics } from "../../db/stats";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { checkExpectedCount } from "../../dead-letters/triage/bulk-action";
import { appendAudit } from "../../audit/append";
import { auditActor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import { approveWarning } from "../../dead-letters/triage/approve-warning";
import { buildWhere, idsWhere } from "../../dead-letters/query/where";
import { paramsOf, scopeSql, type RecordScope } from "../../scope/record-scope";
import { actingActor, type ActingUser } from "./apply-batch-action";
import { repairConflicts, type BatchPreview, type CreateBatchInput, type Selection } from "./batch-schemas";
import { checkSink, sinkView, storeSink } from "../sinks/registry.server";
import { sinkPlug } from "../sinks/registry";
import { utcMicrosSql } from "../../time/instant";
import { originDestinations, refuseDisallowedDestinations } from "../sinks/origin/origin-destinations";
import type { DeadLetterKind } from "@/lib/vocabulary/record";
import { HAS_ORIGIN, ITEM_SNAPSHOT_SQL } from "../../vocabulary/replay-item";
import { configuredMaskRules } from "../../masking/config";
import { maskEntityKey } from "../../masking/identifiers";

// Creating a batch from approved records: the selection (ids or a list filter) is resolved once, in replay
// order (observed_at, id), and each record is snapshotted into an item with ONE INSERT … SELECT.
//
// Only records that are `approved`, carry an idempotency key and are not in another active batch go in.
// Explicit ids that do not qualify are refused with 422 naming each one (the supervisor picked them, so a
// silent skip would be a surprise); a filter takes what qualifies and reports how many it left out.

export const MAX_BATCH_RECORDS = 1_000_000;
/** Serialises batch creation, so two batches created at the same moment cannot take the same record. */
const CREATE_LOCK = 0x5245_4432; // "RED2"

// Whether a record is in an active batch. Its plan depends on the statistics (a hash anti-join when they are
// right; a nested loop over a whole batch's items per record when they say "1 approved record": minutes),
// so previews and creation freshen them first (freshenReplayStatistics). The item status is compared as text so the
// batch-keyed partial indexes are never the inner side of that loop.
const BUSY = `EXISTS (SELECT 1 FROM replay_item ri JOIN replay_batch rb ON rb.id = ri.batch_id
  WHERE ri.dead_letter_id = d.id AND rb.status IN ('draft', 'approved', 'running', 'paused')
    AND ri.status::text IN ('pending', 'running', 'retry'))`;
const ELIGIBLE = `d.status = 'approved' AND d.idempotency_key IS NOT NULL AND NOT ${BUSY}`;
const eligible = (origin: boolean) => (origin ? `${ELIGIBLE} AND ${HAS_ORIGIN}` : ELIGIBLE);

function selectionWhere(sel: Selection, values: unknown[]): string {
  if ("ids" in sel) return idsWhere(sel.scope, sel.ids, values);
  // A status in the filter narrows what "matched" means (so ?status=approved reports nothing as left out);
  // approval itself is the engine's rule (ELIGIBLE), whatever the filter says.
  return buildWhere(sel.scope, sel.filter, values).text;
}

function checkFilterStatus(sel: Selection): void {
  if ("filter" in sel && sel.filter.status && !sel.filter.status.includes("approved")) {
    throw new AppError("validation_failed", "filter.status: a replay batch takes approved records only", {
      issues: [{ path: "filter.status", message: "must include approved (only approved records are replayed)" }],
    });
  }
}

/**
 * The ids of a selection a batch would take — approved, keyed, not in an active batch — so a form built from a
 * mixed selection submits those (POST /api/replays refuses ineligible ids, naming each, rather than guess).
 */
export async function eligibleIds(db: pg.Pool | pg.PoolClient, scope: RecordScope, ids: string[]): Promise<string[]> {
  const values: unknown[] = [];
  const where = idsWhere(scope, ids, values);
  const { rows } = await db.query<{ id: string }>(
    `SELECT d.id::text AS id FROM dead_letter d WHERE ${where} AND ${ELIGIBLE} ORDER BY d.observed_at, d.id`,
    values,
  );
  return rows.map((r) => r.id);
}

/** Ids that cannot go into a batch, with why (422 with one issue per id). */
async function refuseIneligibleIds(
  db: pg.Pool | pg.PoolClient,
  scope: RecordScope,
  ids: string[],
  origin: boolean,
  spatialOnly: boolean,
): Promise<void> {
  const values: unknown[] = [ids];
  // A record outside the creator's teams is "no such record", as one that does not exist.
  const visible = scopeSql(scope, paramsOf(values), "d");
  const { rows } = await db.query<{
    id: string;
    at: number;
    status: string | null;
    has_key: boolean | null;
    busy: boolean | null;
    has_origin: boolean | null;
    kind: string | null;
  }>(
    `SELECT w.id::text AS id, (w.ord - 1)::int AS at, d.status::text AS status, d.idempotency_key IS NOT NULL AS has_key, ${BUSY} AS busy,
       ${HAS_ORIGIN} AS has_origin, d.kind::text AS kind
     FROM unnest($1::bigint[]) WITH ORDINALITY AS w(id, ord) LEFT JOIN dead_letter d ON d.id = w.id AND ${visible}
     ORDER BY w.ord`,
    values,
  );
  const issues = rows.flatMap((r) => {
    const why =
      r.status === null
        ? "no such record"
        : r.status !== "approved"
          ? `is ${r.status}, not approved`
          : !r.has_key
            ? "has no idempotency key"
            : r.busy
              ? "is already in an active replay batch"
              : origin && !r.has_origin
                ? "has no origin (it was not pulled from a broker source): the origin sink cannot send it"
                : spatialOnly && r.kind !== "spatial"
                  ? `is an ${r.kind === "afc" ? "AFC tap" : r.kind} record: the PostGIS sink takes spatial features only`
                  : null;
    // The path is the id's position in the request (ids.0 is the first), as for every other array field.
    return why ? [{ path: `ids.${r.at}`, message: `record ${r.id} ${why}` }] : [];
  });
  if (issues.length > 0) {
    throw new AppError(
      "validation_failed",
      `${issues.length} selected record(s) cannot be replayed: ${issues
        .slice(0, 5)
        .map((i) => i.message)
        .join("; ")}${issues.length > 5 ? "; …" : ""}`,
      { issues },
    );
  }
}

/**
 * The statistics the eligibility check's plan depends on (see BUSY), freshened if stale: callers do this once,
 * outside any transaction, before previewing or creating.
 */
export function freshenReplayStatistics(db: pg.Pool): Promise<string[]> {
  return freshenStatistics(db, ["dead_letter", "replay_item", "replay_batch"]);
}

/**
 * What a batch of `sel` would take. `origin`: for the origin sink, records without an origin are left out (and
 * counted in skipped.noOrigin, which is counted for every preview so the form can say it before the sink is chosen).
 * The sample is for reading (the creation page, `replay create --preview`): a tap's entity key is its device_id,
 * masked here when the key globs name it, so no reader of a preview gets it in clear.
 */
export async function previewBatch(db: pg.Pool | pg.PoolClient, sel: Selection, opts: { origin?: boolean } = {}): Promise<BatchPreview> {
  checkFilterStatus(sel);
  const values: unknown[] = [];
  const where = selectionWhere(sel, values);
  const { rows } = await db.query<{
    count: number;
    spatial: number;
    afc: number;
    first: string | null;
    last: string | null;
    entities: number;
    not_approved: number;
    no_key: number;
    busy: number;
    no_origin: number;
  }>(
    `WITH m AS (
       SELECT d.id, d.kind, d.status, d.idempotency_key, d.entity_key, d.observed_at, ${HAS_ORIGIN} AS has_origin,
         d.status = 'approved' AND d.idempotency_key IS NOT NULL AND ${BUSY} AS busy
       FROM dead_letter d WHERE ${where}
     ), f AS (SELECT * FROM m WHERE status = 'approved' AND idempotency_key IS NOT NULL AND NOT busy),
     e AS (SELECT * FROM f WHERE ${opts.origin ? "has_origin" : "true"})
     SELECT (SELECT count(*)::int FROM e) AS count,
       (SELECT count(*)::int FROM e WHERE kind = 'spatial') AS spatial, (SELECT count(*)::int FROM e WHERE kind = 'afc') AS afc,
       (SELECT ${utcMicrosSql("min(observed_at)")} FROM e) AS first, (SELECT ${utcMicrosSql("max(observed_at)")} FROM e) AS last,
       (SELECT count(DISTINCT (kind, entity_key))::int FROM e WHERE entity_key IS NOT NULL) AS entities,
       (SELECT count(*)::int FROM m WHERE status <> 'approved') AS not_approved,
       (SELECT count(*)::int FROM m WHERE status = 'approved' AND idempotency_key IS NULL) AS no_key,
       (SELECT count(*)::int FROM m WHERE busy) AS busy,
       (SELECT count(*)::int FROM f WHERE NOT has_origin) AS no_origin`,
    values,
  );
  const sample = await db.query<{
    id: string;
    kind: DeadLetterKind;
    idempotency_key: string;
    entity_key: string | null;
    observed_at: string;
  }>(
    `SELECT d.id::text AS id, d.kind, d.idempotency_key, d.entity_key, ${utcMicrosSql("d.observed_at")} AS observed_at
     FROM dead_letter d WHERE ${where} AND ${eligible(opts.origin ?? false)} ORDER BY d.observed_at, d.id LIMIT 10`,
    values,
  );
  // Pins of repaired geometries only: a valid geometry is sent as received whatever the repair (replay-repair.ts).
  const pinned = await db.query<{ method: string; policy: string; count: number }>(
    `SELECT d.approved_repair->>'method' AS method, d.approved_repair->>'policy' AS policy, count(*)::int AS count
     FROM dead_letter d WHERE ${where} AND ${eligible(opts.origin ?? false)} AND d.kind = 'spatial'
       AND d.approved_repair->>'outcome' = 'repaired'
     GROUP BY 1, 2 ORDER BY 3 DESC`,
    values,
  );
  // Where the records would go back to (only records pulled from a broker source have a destination).
  const { destinations } = await originDestinations(db, `${where} AND ${eligible(true)}`, values);
  const r = rows[0];
  return {
    pinnedRepairs: pinned.rows,
    destinations,
    count: r?.count ?? 0,
    byKind: { spatial: r?.spatial ?? 0, afc: r?.afc ?? 0 },
    firstObservedAt: r?.first ?? null,
    lastObservedAt: r?.last ?? null,
    entities: r?.entities ?? 0,
    sample: sample.rows.map((s) => ({
      id: s.id,
      kind: s.kind,
      idempotencyKey: s.idempotency_key,
      entityKey: maskEntityKey(s.entity_key, s.kind, configuredMaskRules()),
      observedAt: s.observed_at,
    })),
    skipped: { notApproved: r?.not_approved ?? 0, inActiveBatch: r?.busy ?? 0, noKey: r?.no_key ?? 0, noOrigin: r?.no_origin ?? 0 },
  };
}

/** AFC taps read by tapSchemaFailures at most: the preview answers in well under a second. */
const TAP_CHECK_LIMIT = 20_000;

/**
 * How many of the AFC taps a batch would take still fail the tap schema — the replay re-validates and drops them
 * (approving them is allowed, with a warning: lib/dead-letters/triage/approve-warning.ts). The creation page says so before
 * the batch exists. Reads at most TAP_CHECK_LIMIT payloads (`checked`); beyond that the count is a lower bound.
 */
export async function tapSchemaFailures(
  db: pg.Pool | pg.PoolClient,
  sel: Selection,
): Promise<{ failing: number; checked: number; complete: boolean }> {
  checkFilterStatus(sel);
  const values: unknown[] = [];
  const where = selectionWhere(sel, values);
  values.push(TAP_CHECK_LIMIT + 1);
  const { rows } = await db.query<{ payload: unknown }>(
    `SELECT d.payload FROM dead_letter d WHERE ${where} AND ${ELIGIBLE} AND d.kind = 'afc' LIMIT $${values.length}`,
    values,
  );
  const checked = Math.min(rows.length, TAP_CHECK_LIMIT);
  let failing = 0;
  for (let i = 0; i < checked; i++) if (approveWarning("afc", rows[i]!.payload) !== null) failing++;
  return { failing, checked, complete: rows.length <= TAP_CHECK_LIMIT };
}

/**
 * A batch repair that replaces approved ones changes what analysts approved: only with the count confirmed, as
 * the preview showed it (a different count now is a 409, as for expectedCount). Without override nothing is
 * replaced, and nothing needs confirming.
 */
export function checkRepairOverride(repair: CreateBatchInput["repair"], conflicts: number): void {
  if (!repair.override || conflicts === 0) return;
  if (repair.confirmedConflicts === undefined) {
    const message = `replaces the approved repair of ${conflicts} record(s): confirm with confirmedConflicts = ${conflicts}`;
    throw new AppError("validation_failed", `repair.override: ${message}`, { issues: [{ path: "repair.confirmedConflicts", message }] });
  }
  if (repair.confirmedConflicts !== conflicts) {
    throw new AppError(
      "conflict",
      `repair: ${conflicts} approved repairs would change now, not ${repair.confirmedConflicts}: confirm again`,
      {
        issues: [{ path: "repair.confirmedConflicts", message: `is ${conflicts} now` }],
        details: { conflicts },
      },
    );
  }
}

export interface CreatedBatch {
  id: string;
  total: number;
  skipped: BatchPreview["skipped"];
}

export async function createBatch(
  pool: pg.Pool,
  input: CreateBatchInput,
  user: ActingUser,
  ctx: { now: Date; requestId?: string | null },
): Promise<CreatedBatch> {
  const selection: Selection = input.ids ? { ids: input.ids, scope: user.scope } : { filter: input.filter ?? {}, scope: user.scope };
  checkFilterStatus(selection);
  // Outside the transaction: a target that is slow to answer must not hold the creation lock.
  await checkSink(input.sink);
  const { spatialOnly, needsOrigin: origin } = sinkPlug(input.sink.type);
  await freshenReplayStatistics(pool);
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [CREATE_LOCK]);
    if ("ids" in selection) await refuseIneligibleIds(client, selection.scope, selection.ids, origin, spatialOnly);
    const counted = await previewBatch(client, selection, { origin });
    // Records without an origin are left out only by the origin sink; for the others they are no news.
    const preview = origin ? counted : { ...counted, skipped: { ...counted.skipped, noOrigin: 0 } };
    // The count shown on the creation page is what the supervisor agreed to replay (a page restored by Back can
    // show one from minutes ago): a different count now is a 409, not a batch of another size.
    checkExpectedCount(input.expectedCount, preview.count);
    if (spatialOnly && preview.byKind.afc > 0) {
      const message = `holds ${preview.byKind.afc.toLocaleString("en")} AFC tap(s); the PostGIS sink takes spatial features only (filter kind=spatial)`;
      throw new AppError("validation_failed", `filter.kind: ${message}`, { issues: [{ path: "filter.kind", message }] });
    }
    if (preview.count === 0) {
      const busy = preview.skipped.inActiveBatch;
      const why = busy > 0 ? `; ${busy.toLocaleString("en")} approved ${busy === 1 ? "is" : "are"} already in an active batch` : "";
      throw new AppError("validation_failed", `selection: no approved record matches (nothing to replay)${why}`, {
        issues: [{ path: "filter", message: `matches no approved record that is free to replay${why}` }],
      });
    }
    checkRepairOverride(input.repair, repairConflicts(preview.pinnedRepairs, input.repair));
    if (preview.count > MAX_BATCH_RECORDS) {
      throw new AppError("validation_failed", `selection: ${preview.count} records; a batch takes at most ${MAX_BATCH_RECORDS}`);
    }
    const conflicts = repairConflicts(preview.pinnedRepairs, input.repair);
    // Back to origin: a record whose destination its source's options.destinations do not allow is refused,
    // named; the others' destinations are kept on the batch for the supervisor who approves it.
    let destinations = null;
    if (origin) {
      const found = preview.destinations ?? [];
      if (found.some((d) => !d.allowed)) {
        // Rare: group again for the refused (source, destination) pairs, to name their records.
        const dv: unknown[] = [];
        const dWhere = `${selectionWhere(selection, dv)} AND ${eligible(true)}`;
        const { refused } = await originDestinations(client, dWhere, dv);
        await refuseDisallowedDestinations(client, refused, dWhere, dv, "ids" in selection ? selection.ids : null);
      }
      destinations = found.map(({ source, destination, count }) => ({ source, destination, count }));
    }
    const batch = await client.query<{ id: string }>(
      `INSERT INTO replay_batch (status, created_by_id, sink, selection, rate_per_second, page_size, max_replays, repair_method,
         repair_policy, max_attempts, failure_threshold, created_at, updated_at, repair_override, destinations)
       VALUES ('draft', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13) RETURNING id::text AS id`,
      [
        user.userId,
        JSON.stringify(storeSink(input.sink)),
        JSON.stringify("ids" in selection ? { ids: selection.ids } : { filter: selection.filter }),
        input.ratePerSecond,
        input.pageSize,
        input.maxReplays,
        input.repair.method,
        input.repair.policy,
        input.maxAttempts,
        input.failureThreshold,
        ctx.now,
        input.repair.override && conflicts > 0,
        destinations === null ? null : JSON.stringify(destinations),
      ],
    );
    const id = batch.rows[0]?.id as string;
    const values: unknown[] = [id, ctx.now];
    const where = selectionWhere(selection, values);
    const items = await client.query(
      `INSERT INTO replay_item (batch_id, dead_letter_id, seq, kind, idempotency_key, entity_key, observed_at, snapshot, run_at)
       SELECT $1, d.id, row_number() OVER (ORDER BY d.observed_at, d.id), d.kind, d.idempotency_key, d.entity_key, d.observed_at,
         ${ITEM_SNAPSHOT_SQL}, $2
       FROM dead_letter d WHERE ${where} AND ${eligible(origin)}
       ORDER BY d.observed_at, d.id`,
      values,
    );
    const total = items.rowCount ?? 0;
    await client.query(`UPDATE replay_batch SET total = $2 WHERE id = $1`, [id, total]);
    await appendAudit(
      client,
      [
        {
          ...auditActor(actingActor(user), ctx.requestId ?? null),
          action: "replay_batch.create",
          targetType: "replay_batch",
          targetId: id,
          after: {
            status: "draft",
            total,
            skipped: preview.skipped,
            selection,
            sink: sinkView(input.sink),
            ...(destinations ? { destinations } : {}),
            ratePerSecond: input.ratePerSecond,
            pageSize: input.pageSize,
            maxReplays: input.maxReplays,
            maxAttempts: input.maxAttempts,
            repair: {
              method: input.repair.method,
              policy: input.repair.policy,
              // What the supervisor confirmed: the approved repairs this batch replaces (0 when it replaces none).
              override: input.repair.override && conflicts > 0,
              overriddenApprovals: input.repair.override ? conflicts : 0,
              approvedRepairsKept: input.repair.override ? 0 : conflicts,
            },
            failureThreshold: input.failureThreshold,
          },
        },
      ],
      ctx.now,
    );
    return { id, total, skipped: preview.skipped };
  });
}
