import "server-only";
import type { RecordScope } from "../../scope/record-scope";
import { createHash } from "node:crypto";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { appendAudit } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import type { AlertMetric, AlertRuleUpdate } from "../../forensics/forensics-schemas";
import { checkOutboundTarget } from "../../net/outbound-guard";
import { urlOrigin } from "../../masking/url";
import { isSealed } from "../../secrets/seal";
import { openSecret, sealSecret } from "../../secrets/stored-secret";

// Alert rules as the UI shows them (with the open event, if firing) and their edits by supervisors, audited
// with before and after. The rules themselves ship with the forensics migration.

export interface AlertEventView {
  id: string;
  ruleId: string;
  firedAt: string;
  resolvedAt: string | null;
  value: number;
  message: string;
  deliveredAt: string | null;
  deliveryAttempts: number;
  deliveryError: string | null;
}

export interface AlertRuleView {
  id: string;
  name: string;
  metric: AlertMetric;
  threshold: number;
  windowMinutes: number;
  enabled: boolean;
  webhookUrl: string | null;
  lastValue: number | null;
  lastEvaluatedAt: string | null;
  firing: AlertEventView | null;
}

interface EventRow {
  id: string;
  rule_id: string;
  fired_at: Date;
  resolved_at: Date | null;
  value: number;
  message: string;
  delivered_at: Date | null;
  delivery_attempts: number;
  delivery_error: string | null;
}

const toEvent = (e: EventRow): AlertEventView => ({
  id: e.id,
  ruleId: e.rule_id,
  firedAt: e.fired_at.toISOString(),
  resolvedAt: e.resolved_at?.toISOString() ?? null,
  value: e.value,
  message: e.message,
  deliveredAt: e.delivered_at?.toISOString() ?? null,
  deliveryAttempts: e.delivery_attempts,
  deliveryError: e.delivery_error,
});

const EVENT_COLUMNS = `id::text AS id, rule_id, fired_at, resolved_at, value, message, delivered_at, delivery_attempts, delivery_error`;

/**
 * The rules, with the open event of a firing one. A webhook URL is a credential (a chat webhook's secret is its
 * path): `webhooks` "whole" for those who manage alerts, "origin" for every other reader (the alerts page, its
 * API, the overview).
 */
export async function listAlertRules(db: pg.Pool | pg.PoolClient, webhooks: "whole" | "origin"): Promise<AlertRuleView[]> {
  const [rules, open] = await Promise.all([
    db.query<{
      id: string;
      name: string;
      metric: AlertMetric;
      threshold: number;
      window_minutes: number;
      enabled: boolean;
      webhook_url: string | null;
      last_value: number | null;
      last_evaluated_at: Date | null;
    }>(
      "SELECT id, name, metric, threshold, window_minutes, enabled, webhook_url, last_value, last_evaluated_at FROM alert_rule ORDER BY id",
    ),
    db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM alert_event WHERE resolved_at IS NULL ORDER BY fired_at`),
  ]);
  const firing = new Map(open.rows.map((e) => [e.rule_id, toEvent(e)]));
  return rules.rows.map((r) => ({
    id: r.id,
    name: r.name,
    metric: r.metric,
    threshold: r.threshold,
    windowMinutes: r.window_minutes,
    enabled: r.enabled,
    webhookUrl: r.webhook_url === null ? null : shownWebhook(r.webhook_url, webhooks),
    lastValue: r.last_value,
    lastEvaluatedAt: r.last_evaluated_at?.toISOString() ?? null,
    firing: firing.get(r.id) ?? null,
  }));
}

/** A stored webhook URL as `webhooks` readers see it; one sealed with another key says so instead. */
function shownWebhook(stored: string, webhooks: "whole" | "origin"): string {
  let url: string;
  try {
    url = openSecret(stored);
  } catch (err) {
    return `(cannot be read: ${(err as Error).message}; enter the URL again)`;
  }
  return webhooks === "whole" ? url : urlOrigin(url);
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

export async function recentAlertEvents(db: pg.Pool | pg.PoolClient, limit = 50): Promise<AlertEventView[]> {
  const { rows } = await db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM alert_event ORDER BY fired_at DESC, id DESC LIMIT $1`, [limit]);
  return rows.map(toEvent);
}

export async function updateAlertRule(
  pool: pg.Pool,
  id: string,
  patch: AlertRuleUpdate,
  ctx: { actor: Actor; requestId: string; now: Date },
): Promise<AlertRuleView> {
  if (patch.webhookUrl) await checkOutboundTarget(patch.webhookUrl, "webhookUrl");
  await inTransaction(pool, async (client) => {
    const before = await client.query<{
      name: string;
      threshold: number;
      window_minutes: number;
      enabled: boolean;
      webhook_url: string | null;
    }>("SELECT name, threshold, window_minutes, enabled, webhook_url FROM alert_rule WHERE id = $1 FOR UPDATE", [id]);
    const b = before.rows[0];
    if (!b) throw new AppError("not_found", `alert rule ${id} does not exist`, { issues: [{ path: "id", message: "no such alert rule" }] });
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
  const rule = (await listAlertRules(pool, "whole")).find((r) => r.id === id); // answered to its manager
  if (!rule) throw new AppError("not_found", `alert rule ${id} does not exist`);
  return rule;
}

/** Seals webhook URLs stored in clear (rules edited before sealing); returns how many. */
export async function sealPlainWebhooks(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ id: string; webhook_url: string }>(
    "SELECT id, webhook_url FROM alert_rule WHERE webhook_url IS NOT NULL",
  );
  const plain = rows.filter((r) => !isSealed(r.webhook_url));
  for (const r of plain) {
    await pool.query("UPDATE alert_rule SET webhook_url = $2 WHERE id = $1 AND webhook_url = $3", [
      r.id,
      sealSecret(r.webhook_url),
      r.webhook_url,
    ]);
  }
  return plain.length;
}

/**
 * The alerts as a reader in teams sees them: the rules and thresholds, without the values they were evaluated to
 * and the events they fired (company-wide counts, which include other teams' records). Alerts per team are not
 * evaluated yet; a reader in no team sees everything.
 */
export function alertsForScope(
  scope: RecordScope,
  rules: AlertRuleView[],
  events: AlertEventView[],
): { rules: AlertRuleView[]; events: AlertEventView[] } {
  if (scope.all) return { rules, events };
  return { rules: rules.map((r) => ({ ...r, lastValue: null, lastEvaluatedAt: null, firing: null })), events: [] };
}
