import "server-only";
import type pg from "pg";
import { paramsOf, type RecordScope } from "../../scope/record-scope";
import { urlOrigin } from "../../masking/url";
import { isSealed } from "../../secrets/seal";
import { openSecret, sealSecret } from "../../secrets/stored-secret";
import { ruleIdsInScope } from "../../rules/rules";
import { RULE_ALERT_METRICS, type AlertMetric } from "../../forensics/forensics-schemas";
import { ruleAccess } from "./alert-scope";

// Alert rules as the UI shows them (with the open event, if firing), read through the principal's scope
// (alert-scope.ts): a team's rules to its members, company-wide ones to everyone with their values to the
// unscoped only. An event about one triage rule (alert_event.triage_rule_id: rule-canary, rule-refailure) is shown
// with its value and message to every reader whose teams hold that triage rule (lib/rules ruleInScope), though its
// alert rule is company-wide. Changes are in change-alert-rule.ts. The company-wide defaults ship with the
// forensics migration.

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
  /** the team whose records it counts; null: company-wide */
  teamId: string | null;
  team: string | null;
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
  triage_rule_id: string | null;
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

const EVENT_COLUMNS = `id::text AS id, rule_id, fired_at, resolved_at, value, message, delivered_at, delivery_attempts, delivery_error,
  triage_rule_id::text AS triage_rule_id`;

/** The SQL condition on alert_rule `r` for the rules a scope may see at all (company-wide and its teams'). */
function visibleRules(scope: RecordScope, p: (v: unknown) => string): string {
  return scope.all ? "TRUE" : `(r.team_id IS NULL OR r.team_id = ANY(${p(scope.teamIds)}::bigint[]))`;
}

/**
 * The rules `scope` may see, with the open event of a firing one; a company-wide rule's value and event are left
 * out for a principal in teams (ruleAccess). A webhook URL is a credential (a chat webhook's secret is its path):
 * `webhooks` "whole" for those who manage alerts, "origin" for every other reader (the alerts page, its API, the
 * overview) and for a company-wide rule read by a supervisor in teams, who does not manage it.
 */
export async function listAlertRules(
  db: pg.Pool | pg.PoolClient,
  scope: RecordScope,
  webhooks: "whole" | "origin",
): Promise<AlertRuleView[]> {
  const values: unknown[] = [];
  const visible = visibleRules(scope, paramsOf(values));
  const [rules, open, ownTriage] = await Promise.all([
    db.query<{
      id: string;
      team_id: string | null;
      team: string | null;
      name: string;
      metric: AlertMetric;
      threshold: number;
      window_minutes: number;
      enabled: boolean;
      webhook_url: string | null;
      last_value: number | null;
      last_evaluated_at: Date | null;
    }>(
      `SELECT r.id, r.team_id::text AS team_id, t.name AS team, r.name, r.metric, r.threshold, r.window_minutes, r.enabled,
         r.webhook_url, r.last_value, r.last_evaluated_at
       FROM alert_rule r LEFT JOIN team t ON t.id = r.team_id WHERE ${visible} ORDER BY r.team_id NULLS FIRST, r.id`,
      values,
    ),
    db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM alert_event e WHERE resolved_at IS NULL ORDER BY fired_at`),
    scope.all ? Promise.resolve([]) : ruleIdsInScope(db, scope),
  ]);
  const firing = new Map(open.rows.map((e) => [e.rule_id, toEvent(e)]));
  // The latest open event of each alert rule about a triage rule of the reader's teams.
  const triage = new Set(ownTriage);
  const firingOwn = new Map(
    open.rows.filter((e) => e.triage_rule_id !== null && triage.has(e.triage_rule_id)).map((e) => [e.rule_id, toEvent(e)]),
  );
  return rules.rows.map((r) => {
    const full = ruleAccess(scope, r.team_id) === "full";
    // When an event-driven alert was last checked tells nothing of other teams' records.
    const eventDriven = RULE_ALERT_METRICS.includes(r.metric);
    return {
      id: r.id,
      teamId: r.team_id,
      team: r.team,
      name: r.name,
      metric: r.metric,
      threshold: r.threshold,
      windowMinutes: r.window_minutes,
      enabled: r.enabled,
      webhookUrl: r.webhook_url === null ? null : shownWebhook(r.webhook_url, full ? webhooks : "origin"),
      lastValue: full ? r.last_value : null,
      lastEvaluatedAt: full || eventDriven ? (r.last_evaluated_at?.toISOString() ?? null) : null,
      firing: (full ? firing.get(r.id) : firingOwn.get(r.id)) ?? null,
    };
  });
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
 * The latest events `scope` sees: every event unscoped; in teams those of its teams' rules and those about a triage
 * rule of its teams.
 */
export async function recentAlertEvents(db: pg.Pool | pg.PoolClient, scope: RecordScope, limit = 50): Promise<AlertEventView[]> {
  const values: unknown[] = [limit];
  const p = paramsOf(values);
  const own = scope.all
    ? ""
    : `WHERE e.rule_id IN (SELECT r.id FROM alert_rule r WHERE r.team_id = ANY(${p(scope.teamIds)}::bigint[]))
         OR e.triage_rule_id = ANY(${p(await ruleIdsInScope(db, scope))}::bigint[])`;
  const { rows } = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM alert_event e ${own} ORDER BY e.fired_at DESC, e.id DESC LIMIT $1`,
    values,
  );
  return rows.map(toEvent);
}

/** The teams a scope may give alert rules to, for the create form: its own, or every team when unscoped. */
export async function alertTeams(db: pg.Pool | pg.PoolClient, scope: RecordScope): Promise<{ id: string; name: string }[]> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id::text AS id, name FROM team ${scope.all ? "" : "WHERE id = ANY($1::bigint[])"} ORDER BY name`,
    scope.all ? [] : [scope.teamIds],
  );
  return rows;
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
