import "server-only";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { CANARY_ALERT, fireRuleAlert, resolveRuleAlert } from "../../rules/rule-alerts";
import { canaryPause } from "./apply-batch-action";
import { lockBatchForStop } from "./stop-lock";
import { OPEN_STANDING } from "../../rules/standing-queue";
import { canaryVerdict, type CanaryVerdict } from "./canary";
import type { ItemStatus } from "./batch-schemas";
import { sinkPlug, type SinkType } from "../sinks/registry";
import { storedSinkView } from "../sinks/registry.server";
import type { RuleReplayStats, StandingReplayView } from "../../rules/rule-schemas";
import type { StandingFlows, StandingSpec } from "../../rules/rules";

// A triage rule's standing replay, its replay side: one batch per rule version that carries `replay`, opened —
// approved and running — in the transaction that approves the version (that approval, by a second supervisor, is
// the batch's four eyes), and open while the version is the rule's active one. The rule's approvals are appended
// to it where they are decided (lib/rules/standing-queue.ts); the ordinary replay lanes drain it at its rate, on any
// server. Here: opening it, the kill switch's pause, a supervisor's resume, the canary the worker checks after each
// page, and what the rule's page shows of it.

/**
 * Opens the version's standing batch (in the approving transaction): approved by the version's approval, running
 * at once, empty. Returns its id.
 */
export async function openStandingBatch(
  client: pg.PoolClient,
  spec: StandingSpec,
  actor: Actor,
  requestId: string | null,
  now: Date,
): Promise<string> {
  const { rule, replay } = spec;
  // What the appends filter on (lib/rules/standing-queue.ts), from the sink's plug: the batch's selection keeps it.
  const { needsOrigin, spatialOnly } = sinkPlug(replay.sink.type as SinkType);
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO replay_batch (status, created_by_id, approved_by_id, sink, selection, rate_per_second, created_at, approved_at,
       started_at, window_from, updated_at, rule_id, rule_version, canary_count, canary_max_failure_rate)
     VALUES ('running', $1, $2, $3, $4, $5, $6, $6, $6, $6, $6, $7, $8, $9, $10) RETURNING id::text AS id`,
    [
      spec.draftedById ?? `rule:${rule.id}`,
      spec.approvedById,
      JSON.stringify(replay.sink),
      JSON.stringify({ rule, needsOrigin: needsOrigin === true, spatialOnly: spatialOnly === true }),
      replay.ratePerSecond,
      now,
      rule.id,
      rule.version,
      replay.canary?.count ?? null,
      replay.canary?.maxFailureRate ?? null,
    ],
  );
  const id = rows[0]!.id;
  const standing = { rule, approvers: spec.approvers };
  await appendAudit(
    client,
    [
      {
        ...auditActor(actor, requestId),
        action: "replay_batch.create",
        targetType: "replay_batch",
        targetId: id,
        reason: `standing replay of rule ${rule.name} v${rule.version}: approved by the rule version's four eyes (${spec.approvers.join(" and ")})`,
        after: {
          status: "approved",
          standing,
          sink: storedSinkView(replay.sink),
          ratePerSecond: replay.ratePerSecond,
          ...(replay.canary ? { canary: replay.canary } : {}),
        },
      },
      {
        ...auditActor(actor, requestId),
        action: "replay_batch.start",
        targetType: "replay_batch",
        targetId: id,
        before: { status: "approved" },
        after: { status: "running", standing },
      },
    ],
    now,
  );
  return id;
}

/** The kill switch: the rule's running standing batches pause with it (their items wait; the batch page resumes or cancels). */
export async function pauseStandingOf(
  client: pg.PoolClient,
  ruleId: string,
  reason: string,
  actor: Actor,
  requestId: string | null,
  now: Date,
) {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id::text AS id FROM replay_batch WHERE rule_id = $1 AND status = 'running' ORDER BY id`,
    [ruleId],
  );
  for (const { id } of rows) {
    await lockBatchForStop(client, id);
    const paused = await client.query(
      `UPDATE replay_batch SET status = 'paused', status_reason = $2, updated_at = $3 WHERE id = $1 AND status = 'running'`,
      [id, reason, now],
    );
    if (paused.rowCount !== 1) continue;
    await appendAudit(
      client,
      [
        {
          ...auditActor(actor, requestId),
          action: "replay_batch.pause",
          targetType: "replay_batch",
          targetId: id,
          before: { status: "running" },
          after: { status: "paused" },
          reason,
        },
      ],
      now,
    );
  }
}

/**
 * A supervisor resumes the rule's paused standing replay (the active version's; its canary watches again from now)
 * in the transaction that resolves the rule's canary alert. 409 when nothing of the rule is paused.
 */
export async function resumeStandingOf(
  client: pg.PoolClient,
  rule: { id: string; name: string },
  actor: Actor,
  requestId: string | null,
  now: Date,
): Promise<string> {
  const { rows } = await client.query<{ id: string; status_reason: string | null }>(
    `SELECT b.id::text AS id, b.status_reason FROM replay_batch b
     WHERE b.rule_id = $1 AND b.status = 'paused' AND ${OPEN_STANDING} FOR UPDATE`,
    [rule.id],
  );
  const batch = rows[0];
  if (!batch) throw new AppError("conflict", `rule ${rule.name} has no paused standing replay (of its active version) to resume`);
  await client.query(
    `UPDATE replay_batch SET status = 'running', tat = NULL, window_from = $2, status_reason = NULL, canary_passed_at = NULL,
       canary_tripped_at = NULL, updated_at = $2 WHERE id = $1`,
    [batch.id, now],
  );
  await appendAudit(
    client,
    [
      {
        ...auditActor(actor, requestId),
        action: "replay_batch.resume",
        targetType: "replay_batch",
        targetId: batch.id,
        before: { status: "paused", reason: batch.status_reason },
        after: { status: "running", standing: { rule } },
      },
    ],
    now,
  );
  await resolveRuleAlert(client, CANARY_ALERT, rule.id, now);
  return batch.id;
}

/**
 * The worker's canary check after a page's outcomes: once the first `count` items submitted since the flow
 * (re)started have an answer, the batch passes (and is not checked again until a resume) or pauses, raising the
 * rule's alert in the same transaction. Null for a batch without a canary still watching.
 */
export async function checkCanary(pool: pg.Pool, batchId: string, actor: Actor, now: Date): Promise<CanaryVerdict | null> {
  const { rows } = await pool.query<{
    count: number;
    max: number;
    rule_id: string;
    rule_name: string;
    version: number;
    statuses: ItemStatus[] | null;
  }>(
    `SELECT b.canary_count AS count, b.canary_max_failure_rate AS max, b.rule_id::text AS rule_id, r.name AS rule_name,
       b.rule_version AS version,
       ARRAY(SELECT i.status::text FROM replay_item i
             WHERE i.batch_id = b.id AND i.submitted_at >= coalesce(b.window_from, '-infinity')
             ORDER BY i.seq LIMIT b.canary_count) AS statuses
     FROM replay_batch b JOIN rule r ON r.id = b.rule_id
     WHERE b.id = $1 AND b.status = 'running' AND b.canary_count IS NOT NULL AND b.canary_passed_at IS NULL`,
    [batchId],
  );
  const c = rows[0];
  if (!c) return null;
  const verdict = canaryVerdict(c.statuses ?? [], { count: c.count, maxFailureRate: c.max });
  if (verdict.state === "passed") {
    await pool.query(`UPDATE replay_batch SET canary_passed_at = $2 WHERE id = $1 AND canary_passed_at IS NULL`, [batchId, now]);
  } else if (verdict.state === "tripped") {
    const message = `rule ${c.rule_name} v${c.version}: standing replay (batch ${batchId}) ${verdict.reason}`;
    await canaryPause(pool, batchId, verdict.reason!, actor, now, async (client) => {
      await fireRuleAlert(client, CANARY_ALERT, { id: c.rule_id, name: c.rule_name }, verdict.failures, message, now);
    });
  }
  return verdict;
}

/**
 * Each rule's standing replay as its page shows it: the active version's batch if it has one, else its latest
 * one's; and the outcomes of every standing batch of the rule.
 */
export async function standingOf(db: pg.Pool | pg.PoolClient, ruleIds: string[]): Promise<StandingFlows> {
  if (ruleIds.length === 0) return { standing: new Map(), outcomes: new Map() };
  const [latest, sums] = await Promise.all([
    db.query<{
      rule_id: string;
      id: string;
      version: number;
      status: string;
      open: boolean;
      status_reason: string | null;
      canary_count: number | null;
      canary_max_failure_rate: number | null;
      passed: boolean;
      tripped: boolean;
    }>(
      `SELECT DISTINCT ON (b.rule_id) b.rule_id::text AS rule_id, b.id::text AS id, b.rule_version AS version, b.status::text AS status,
         ${OPEN_STANDING} AS open, b.status_reason, b.canary_count, b.canary_max_failure_rate,
         b.canary_passed_at IS NOT NULL AS passed, b.canary_tripped_at IS NOT NULL AS tripped
       FROM replay_batch b WHERE b.rule_id = ANY($1::bigint[])
       ORDER BY b.rule_id, ${OPEN_STANDING} DESC, b.rule_version DESC`,
      [ruleIds],
    ),
    // Per batch, then per rule: the terminal outcomes from the batch's counters (kept by the engine with the
    // items), what is in the sink's hands or waits for its retry from the items (partial indexes by status), and
    // what waits from the difference. A cancelled or failed batch's waiting items are being marked cancelled in
    // chunks (apply-batch-action.ts cancelWaitingItems): counted cancelled from the start, as the batch page does.
    db.query<OutcomeRow>(
      `WITH per AS (
         SELECT b.rule_id, b.status::text AS status, b.total, b.applied_count, b.deduped_count, b.failed_count + b.poison_count AS failed,
           b.dropped_count, b.cancelled_count, coalesce((b.selection->>'notReplayable')::int, 0) AS not_replayable,
           (SELECT count(*)::int FROM replay_item i WHERE i.batch_id = b.id AND i.status = 'retry') AS retrying,
           (SELECT count(*)::int FROM replay_item i WHERE i.batch_id = b.id AND i.status = 'running') AS sending,
           (SELECT count(*)::int FROM replay_item i WHERE i.batch_id = b.id AND i.submitted_at IS NOT NULL) AS sent
         FROM replay_batch b WHERE b.rule_id = ANY($1::bigint[])
       ), w AS (
         SELECT per.*, greatest(0, total - applied_count - deduped_count - failed - dropped_count - cancelled_count - retrying - sending) AS rest
         FROM per
       )
       SELECT rule_id::text AS rule_id, sum(total)::int AS joined,
         sum(CASE WHEN status IN ('cancelled', 'failed') THEN 0 ELSE rest END)::int AS waiting, sum(sending)::int AS sending,
         sum(retrying)::int AS retrying, sum(sent)::int AS sent, sum(applied_count)::int AS applied, sum(deduped_count)::int AS duplicate,
         sum(failed)::int AS failed, sum(dropped_count)::int AS dropped,
         sum(cancelled_count + CASE WHEN status IN ('cancelled', 'failed') THEN rest ELSE 0 END)::int AS cancelled,
         sum(not_replayable)::int AS not_replayable
       FROM w GROUP BY rule_id`,
      [ruleIds],
    ),
  ]);
  const standing = new Map(
    latest.rows.map((r): [string, StandingReplayView] => [
      r.rule_id,
      {
        batchId: r.id,
        version: r.version,
        status: r.status,
        open: r.open,
        statusReason: r.status_reason,
        canary:
          r.canary_count === null
            ? null
            : {
                count: r.canary_count,
                maxFailureRate: r.canary_max_failure_rate ?? 0,
                state: r.tripped ? "tripped" : r.passed ? "passed" : "watching",
              },
      },
    ]),
  );
  const outcomes = new Map(sums.rows.map((r) => [r.rule_id, outcomesOf(r)]));
  return { standing, outcomes };
}

interface OutcomeRow {
  rule_id: string;
  joined: number;
  waiting: number;
  sending: number;
  retrying: number;
  sent: number;
  applied: number;
  duplicate: number;
  failed: number;
  dropped: number;
  cancelled: number;
  not_replayable: number;
}

/** A rule's outcomes from its batches' sums; `queued` is what ever joined (its older name, kept for clients). */
function outcomesOf(r: OutcomeRow): Omit<RuleReplayStats, "failedAfterReplay"> {
  return {
    joined: r.joined,
    queued: r.joined,
    waiting: r.waiting,
    sending: r.sending,
    retrying: r.retrying,
    sent: r.sent,
    applied: r.applied,
    duplicate: r.duplicate,
    failed: r.failed,
    dropped: r.dropped,
    cancelled: r.cancelled,
    notReplayable: r.not_replayable,
  };
}
