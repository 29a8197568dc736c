import "server-only";
import type pg from "pg";
import { appendAudit, type AuditInput } from "../audit/append";
import { auditActor, SYSTEM_ACTOR } from "../audit/actor";
import { inTransaction } from "../db/transaction";

// Alerts about one triage rule: its standing replay's canary paused the flow (rule-canary), or records it decided
// fail again after their replay (rule-refailure). Here with the rules rather than in lib/ops/alerts: the replay step
// raises the canary's in the transaction that pauses the flow, and the replay step may import the rules, not ops. Each open event names its rule (alert_event.triage_rule_id), so
// two rules in trouble are two events; the alert rule's row holds the threshold, window, switch and webhook as
// for the other alerts, and the webhook delivery of open events is theirs (webhook.ts deliverFired).

export const CANARY_ALERT = "rule-canary";
export const REFAILURE_ALERT = "rule-refailure";
type RuleAlert = typeof CANARY_ALERT | typeof REFAILURE_ALERT;

/**
 * Opens an event of `alert` about the triage rule in the caller's transaction, unless the alert rule is off or
 * one about that rule is open already. Returns the event's id, or null.
 */
export async function fireRuleAlert(
  client: pg.PoolClient,
  alert: RuleAlert,
  rule: { id: string; name: string },
  value: number,
  message: string,
  now: Date,
): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO alert_event (rule_id, fired_at, value, message, triage_rule_id)
     SELECT a.id, $3, $4, $5, $2 FROM alert_rule a
     WHERE a.id = $1 AND a.enabled
       AND NOT EXISTS (SELECT 1 FROM alert_event e WHERE e.rule_id = $1 AND e.triage_rule_id = $2 AND e.resolved_at IS NULL)
     RETURNING id::text AS id`,
    [alert, rule.id, now, value, message],
  );
  const id = rows[0]?.id ?? null;
  if (id) {
    await appendAudit(
      client,
      [
        {
          ...auditActor(SYSTEM_ACTOR),
          action: "alert.fired",
          targetType: "alert_rule",
          targetId: alert,
          after: { eventId: id, value, message, rule: { id: rule.id, name: rule.name } },
        },
      ],
      now,
    );
  }
  return id;
}

/** Resolves the open event of `alert` about the triage rule, if any (in the caller's transaction). */
export async function resolveRuleAlert(client: pg.PoolClient, alert: RuleAlert, ruleId: string, now: Date): Promise<boolean> {
  const { rows } = await client.query<{ id: string }>(
    `UPDATE alert_event SET resolved_at = $3 WHERE rule_id = $1 AND triage_rule_id = $2 AND resolved_at IS NULL RETURNING id::text AS id`,
    [alert, ruleId, now],
  );
  if (rows.length === 0) return false;
  await appendAudit(
    client,
    rows.map((r): AuditInput => ({
      ...auditActor(SYSTEM_ACTOR),
      action: "alert.resolved",
      targetType: "alert_rule",
      targetId: alert,
      after: { eventId: r.id, rule: { id: ruleId } },
    })),
    now,
  );
  return true;
}

/**
 * One round of the re-failure alert (the housekeeping loop runs it after the other alerts): a rule whose records
 * failed again after their replay more than the threshold within the window fires once, naming it; the event
 * resolves when the window holds no more than the threshold. Canary events a supervisor did not resolve by
 * resuming (the batch was cancelled, or the rule changed) resolve here once no batch of the rule is held by its
 * canary. Both alert rules get their value and time of this round. Returns what fired and resolved.
 */
export async function evaluateRuleAlerts(pool: pg.Pool, now: Date): Promise<{ fired: string[]; resolved: number }> {
  return inTransaction(pool, async (client) => {
    const { rows: over } = await client.query<{ id: string; name: string; n: number; window_minutes: number; threshold: number }>(
      `SELECT r.id::text AS id, r.name, sum(s.failed_after_replay)::int AS n, a.window_minutes, a.threshold
       FROM alert_rule a
       JOIN rule_match_stat s ON s.at > $1::timestamptz - a.window_minutes * interval '1 minute' AND s.failed_after_replay > 0
       JOIN rule r ON r.id = s.rule_id
       WHERE a.id = $2 AND a.enabled
       GROUP BY r.id, r.name, a.window_minutes, a.threshold
       HAVING sum(s.failed_after_replay) > a.threshold`,
      [now, REFAILURE_ALERT],
    );
    const fired: string[] = [];
    for (const r of over) {
      const message = `rule ${r.name}: ${r.n} of its records failed again after their replay in the last ${r.window_minutes} min (threshold ${r.threshold}); see /rules`;
      if (await fireRuleAlert(client, REFAILURE_ALERT, r, r.n, message, now)) fired.push(message);
    }
    const { rows: calm } = await client.query<{ rule_id: string; alert: RuleAlert }>(
      `SELECT e.triage_rule_id::text AS rule_id, e.rule_id AS alert FROM alert_event e
       WHERE e.rule_id IN ($1, $2) AND e.resolved_at IS NULL AND e.triage_rule_id IS NOT NULL
         AND CASE WHEN e.rule_id = $1 THEN NOT (e.triage_rule_id::text = ANY($3::text[]))
                  ELSE NOT EXISTS (SELECT 1 FROM replay_batch b
                                   WHERE b.rule_id = e.triage_rule_id AND b.status = 'paused' AND b.canary_tripped_at IS NOT NULL) END`,
      [REFAILURE_ALERT, CANARY_ALERT, over.map((r) => r.id)],
    );
    let resolved = 0;
    for (const c of calm) if (await resolveRuleAlert(client, c.alert, c.rule_id, now)) resolved++;
    // Checked this round, so the page says so: the re-failure alert's value is the most records of one rule failing
    // again in its window, the canary's the number of rules whose canary holds a batch now.
    await client.query(
      `UPDATE alert_rule a SET last_evaluated_at = $1, last_value = CASE WHEN a.id = $2
         THEN (SELECT coalesce(max(n), 0) FROM (SELECT sum(s.failed_after_replay) AS n FROM rule_match_stat s
               WHERE s.at > $1::timestamptz - a.window_minutes * interval '1 minute' AND s.failed_after_replay > 0 GROUP BY s.rule_id) m)
         ELSE (SELECT count(DISTINCT b.rule_id) FROM replay_batch b WHERE b.status = 'paused' AND b.canary_tripped_at IS NOT NULL) END
       WHERE a.id IN ($2, $3) AND a.enabled`,
      [now, REFAILURE_ALERT, CANARY_ALERT],
    );
    return { fired, resolved };
  });
}
