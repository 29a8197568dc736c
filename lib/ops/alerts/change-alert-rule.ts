import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import type { AlertRuleCreate, AlertRuleUpdate } from "../../forensics/forensics-schemas";
import { checkOutboundTarget } from "../../net/outbound-guard";
import { urlOrigin } from "../../masking/url";
import type { RecordScope } from "../../scope/record-scope";
import { openSecret, sealSecret } from "../../secrets/stored-secret";
import { listAlertRules, type AlertRuleView } from "./alert-rules";
import { alertRuleNotFound, assertRuleEditable, newRuleTeam } from "./alert-scope";

// Creating, editing and removing alert rules, each audited with before and after in the same transaction. Who may
// change which rule is alert-scope.ts's: a team's supervisors their team's rules, unscoped supervisors every rule.
// A webhook is checked by the outbound guard when it is set, and again when it is posted to (webhook.ts).

export interface AlertRuleChangeContext {
  actor: Actor;
  /** the principal's teams: which rules they may change */
  scope: RecordScope;
  requestId: string;
  now: Date;
}

/**
 * A webhook URL in an audit event (read at /api/audit): where it points, and a fingerprint that tells one URL from
 * another without giving it away (its secret is its path or query).
 */
function auditedWebhook(stored: string | null): string | null {
  if (stored === null) return null;
  let url: string;
  try {
    url = openSecret(stored);
  } catch {
    return "(cannot be read)";
  }
  return `${urlOrigin(url)} (sha256 ${createHash("sha256").update(url).digest("hex").slice(0, 12)})`;
}

/** The rule as its manager sees it after a change (the webhook whole). */
async function ruleView(pool: pg.Pool, id: string, scope: RecordScope): Promise<AlertRuleView> {
  const rule = (await listAlertRules(pool, scope, "whole")).find((r) => r.id === id);
  if (!rule) throw alertRuleNotFound();
  return rule;
}

/** A new rule's id when none is given: its metric and team, and a suffix so copies of one default do not collide. */
function newRuleId(metric: string, teamId: string | null): string {
  return `${metric.replaceAll("_", "-")}${teamId ? `-team-${teamId}` : ""}-${randomBytes(3).toString("hex")}`;
}

export async function createAlertRule(pool: pg.Pool, body: AlertRuleCreate, ctx: AlertRuleChangeContext): Promise<AlertRuleView> {
  const teamId = newRuleTeam(ctx.scope, body.teamId);
  if (body.webhookUrl) await checkOutboundTarget(body.webhookUrl, "webhookUrl");
  const id = body.id ?? newRuleId(body.metric, teamId);
  const rule = {
    teamId,
    name: body.name,
    metric: body.metric,
    threshold: body.threshold,
    windowMinutes: body.windowMinutes,
    enabled: body.enabled,
    webhookUrl: body.webhookUrl ? sealSecret(body.webhookUrl) : null,
  };
  await inTransaction(pool, async (client) => {
    if (teamId !== null) {
      // FOR UPDATE: two creates for one team take turns, so both cannot pass the check below.
      const team = await client.query("SELECT 1 FROM team WHERE id = $1 FOR UPDATE", [teamId]);
      if (team.rowCount === 0)
        throw new AppError("validation_failed", `team ${teamId} does not exist`, { issues: [{ path: "teamId", message: "no such team" }] });
      // A team has one rule per metric: a second ("Copy for team" twice) would fire twice for one breach.
      const same = await client.query<{ id: string }>("SELECT id FROM alert_rule WHERE team_id = $1 AND metric = $2 LIMIT 1", [
        teamId,
        rule.metric,
      ]);
      if (same.rows[0])
        throw new AppError("conflict", `the team has a ${rule.metric} alert rule already (${same.rows[0].id}): change that one`, {
          issues: [{ path: "metric", message: "the team has an alert rule of this metric already" }],
        });
    }
    const ins = await client.query(
      `INSERT INTO alert_rule (id, team_id, name, metric, threshold, window_minutes, enabled, webhook_url, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
      [id, teamId, rule.name, rule.metric, rule.threshold, rule.windowMinutes, rule.enabled, rule.webhookUrl, ctx.now],
    );
    if (ins.rowCount === 0)
      throw new AppError("conflict", `alert rule ${id} already exists`, { issues: [{ path: "id", message: "is taken" }] });
    await appendAudit(
      client,
      [
        {
          ...auditActor(ctx.actor, ctx.requestId),
          action: "alert_rule.created",
          targetType: "alert_rule",
          targetId: id,
          after: { ...rule, webhookUrl: auditedWebhook(rule.webhookUrl) },
        },
      ],
      ctx.now,
    );
  });
  return ruleView(pool, id, ctx.scope);
}

export async function updateAlertRule(
  pool: pg.Pool,
  id: string,
  patch: AlertRuleUpdate,
  ctx: AlertRuleChangeContext,
): Promise<AlertRuleView> {
  // Before the database: the answer depends on the URL alone, so it tells no one whether the rule exists.
  if (patch.webhookUrl) await checkOutboundTarget(patch.webhookUrl, "webhookUrl");
  await inTransaction(pool, async (client) => {
    const before = await client.query<{
      team_id: string | null;
      name: string;
      threshold: number;
      window_minutes: number;
      enabled: boolean;
      webhook_url: string | null;
    }>("SELECT team_id::text AS team_id, name, threshold, window_minutes, enabled, webhook_url FROM alert_rule WHERE id = $1 FOR UPDATE", [
      id,
    ]);
    const b = before.rows[0];
    if (!b) throw alertRuleNotFound();
    assertRuleEditable(ctx.scope, { id, teamId: b.team_id });
    const after = {
      name: patch.name ?? b.name,
      threshold: patch.threshold ?? b.threshold,
      windowMinutes: patch.windowMinutes ?? b.window_minutes,
      enabled: patch.enabled ?? b.enabled,
      webhookUrl: patch.webhookUrl === undefined ? b.webhook_url : patch.webhookUrl && sealSecret(patch.webhookUrl),
    };
    await client.query(
      `UPDATE alert_rule SET name = $2, threshold = $3, window_minutes = $4, enabled = $5, webhook_url = $6, updated_at = $7 WHERE id = $1`,
      [id, after.name, after.threshold, after.windowMinutes, after.enabled, after.webhookUrl, ctx.now],
    );
    await appendAudit(
      client,
      [
        {
          ...auditActor(ctx.actor, ctx.requestId),
          action: "alert_rule.updated",
          targetType: "alert_rule",
          targetId: id,
          before: {
            name: b.name,
            threshold: b.threshold,
            windowMinutes: b.window_minutes,
            enabled: b.enabled,
            webhookUrl: auditedWebhook(b.webhook_url),
          },
          after: { ...after, webhookUrl: auditedWebhook(after.webhookUrl) },
        },
      ],
      ctx.now,
    );
  });
  return ruleView(pool, id, ctx.scope);
}

/**
 * Removes a team's rule and its events. A company-wide rule is not removed (the shipped defaults would be gone for
 * every team that copies them): it is switched off instead.
 */
export async function deleteAlertRule(pool: pg.Pool, id: string, ctx: AlertRuleChangeContext): Promise<void> {
  await inTransaction(pool, async (client) => {
    const found = await client.query<{ team_id: string | null; name: string; metric: string; threshold: number }>(
      "SELECT team_id::text AS team_id, name, metric, threshold FROM alert_rule WHERE id = $1 FOR UPDATE",
      [id],
    );
    const rule = found.rows[0];
    if (!rule) throw alertRuleNotFound();
    assertRuleEditable(ctx.scope, { id, teamId: rule.team_id });
    if (rule.team_id === null)
      throw new AppError("conflict", `alert rule ${id} is company-wide: disable it instead (PATCH enabled: false)`, {
        issues: [{ path: "id", message: "is a company-wide alert rule" }],
      });
    await client.query("DELETE FROM alert_rule WHERE id = $1", [id]);
    await appendAudit(
      client,
      [
        {
          ...auditActor(ctx.actor, ctx.requestId),
          action: "alert_rule.deleted",
          targetType: "alert_rule",
          targetId: id,
          before: { teamId: rule.team_id, name: rule.name, metric: rule.metric, threshold: rule.threshold },
        },
      ],
      ctx.now,
    );
  });
}
