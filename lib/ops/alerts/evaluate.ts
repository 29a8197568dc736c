import "server-only";
import { UNSCOPED, type RecordScope } from "../../scope/record-scope";
import type pg from "pg";
import { readTeamScopes } from "../../auth/teams/read-scope";
import { appendAudit, type AuditInput } from "../../audit/append";
import { auditActor, SYSTEM_ACTOR } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import { failingSources, hoursBetween, oldestUnresolved, poisonArrivals, unresolvedCount } from "../measures";
import { RULE_ALERT_METRICS, type AlertMetric } from "../../forensics/forensics-schemas";
import { decideAlert, type RuleState } from "./decide";

// One evaluation of every alert rule, in one transaction under a try-lock: with several processes running the
// maintenance loop, one evaluates and the others skip this round, so a breach cannot fire twice by a race.
// Open events (resolved_at IS NULL) carry the state between rounds; decide.ts says what changes. A team's rule
// measures the team's records only (the scope of its claims, record-scope.ts, as the list applies it); a rule
// with no team measures every record.

const ALERT_LOCK = 0x5245_4441; // "REDA"

const NO_RECORDS: RecordScope = { all: false, teamIds: [], sources: [], prefixes: [], origins: [] };

export interface AlertNotice {
  eventId: string;
  ruleId: string;
  /** the team whose records the rule counts; null: company-wide */
  team: string | null;
  name: string;
  metric: AlertMetric;
  threshold: number;
  value: number;
  message: string;
  firedAt: string;
  resolvedAt: string | null;
  /** the rule's webhook as stored (sealed: lib/secrets/stored-secret.ts), opened only to deliver */
  webhookUrl: string | null;
}

export interface Evaluation {
  /** false when another process held the evaluation lock */
  evaluated: boolean;
  fired: AlertNotice[];
  resolved: AlertNotice[];
}

interface RuleRow {
  id: string;
  team_id: string | null;
  team: string | null;
  name: string;
  metric: AlertMetric;
  threshold: number;
  window_minutes: number;
  enabled: boolean;
  webhook_url: string | null;
}

async function metricValue(
  client: pg.PoolClient,
  rule: RuleState,
  scope: { key: string; records: RecordScope },
  now: Date,
  cache: Map<string, number>,
): Promise<number> {
  const measure = rule.metric === "poison_growth" || rule.metric === "source_down" ? `${rule.metric}:${rule.windowMinutes}` : rule.metric;
  const key = `${scope.key}|${measure}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const records = scope.records;
  const since = new Date(now.getTime() - rule.windowMinutes * 60_000);
  let value: number;
  if (rule.metric === "dlq_size") value = await unresolvedCount(client, records);
  else if (rule.metric === "source_down") value = await failingSources(client, since, records);
  else if (rule.metric === "oldest_age") {
    const oldest = await oldestUnresolved(client, records);
    value = oldest ? hoursBetween(oldest.firstSeenAt, now) : 0;
  } else value = await poisonArrivals(client, records, since, now);
  cache.set(key, value);
  return value;
}

export async function evaluateAlerts(pool: pg.Pool, now: Date): Promise<Evaluation> {
  return inTransaction(pool, async (client) => {
    const lock = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS ok", [ALERT_LOCK]);
    if (!lock.rows[0]?.ok) return { evaluated: false, fired: [], resolved: [] };
    const rules = (
      await client.query<RuleRow>(
        `SELECT r.id, r.team_id::text AS team_id, t.name AS team, r.name, r.metric, r.threshold, r.window_minutes, r.enabled, r.webhook_url
         FROM alert_rule r LEFT JOIN team t ON t.id = r.team_id ORDER BY r.id`,
      )
    ).rows;
    const teamScopes = await readTeamScopes(client, [...new Set(rules.flatMap((r) => (r.team_id ? [r.team_id] : [])))]);
    const open = new Map(
      (
        await client.query<{ id: string; rule_id: string; value: number; message: string; fired_at: Date }>(
          `SELECT DISTINCT ON (rule_id) id::text AS id, rule_id, value, message, fired_at FROM alert_event
       WHERE resolved_at IS NULL ORDER BY rule_id, fired_at DESC`,
        )
      ).rows.map((r) => [r.rule_id, r]),
    );
    const cache = new Map<string, number>();
    const out: Evaluation = { evaluated: true, fired: [], resolved: [] };
    const audit: AuditInput[] = [];
    for (const r of rules) {
      // Alerts about one triage rule fire and resolve per rule (lib/rules/rule-alerts.ts), with several events open at once.
      if (RULE_ALERT_METRICS.includes(r.metric)) continue;
      const rule: RuleState = { id: r.id, name: r.name, metric: r.metric, threshold: r.threshold, windowMinutes: r.window_minutes };
      const current = open.get(r.id);
      const notice = (eventId: string, value: number, message: string, firedAt: Date, resolvedAt: Date | null): AlertNotice => ({
        eventId,
        ruleId: r.id,
        team: r.team,
        name: r.name,
        metric: r.metric,
        threshold: r.threshold,
        value,
        message,
        firedAt: firedAt.toISOString(),
        resolvedAt: resolvedAt?.toISOString() ?? null,
        webhookUrl: r.webhook_url,
      });
      if (!r.enabled) {
        // A rule switched off while firing must not stay "firing" forever.
        if (current) {
          await client.query("UPDATE alert_event SET resolved_at = $2 WHERE id = $1", [current.id, now]);
          out.resolved.push(notice(current.id, current.value, `${r.name || r.id} resolved: rule disabled`, current.fired_at, now));
        }
        continue;
      }
      // A team removed since the read above takes its rules with it (cascade); its scope, if missing, matches nothing.
      const scope =
        r.team_id === null
          ? { key: "all", records: UNSCOPED }
          : { key: `team:${r.team_id}`, records: teamScopes.get(r.team_id) ?? NO_RECORDS };
      const value = await metricValue(client, rule, scope, now, cache);
      await client.query("UPDATE alert_rule SET last_value = $2, last_evaluated_at = $3 WHERE id = $1", [r.id, value, now]);
      const d = decideAlert(rule, value, current !== undefined);
      if (d.action === "fire") {
        const ins = await client.query<{ id: string }>(
          "INSERT INTO alert_event (rule_id, fired_at, value, message) VALUES ($1, $2, $3, $4) RETURNING id::text AS id",
          [r.id, now, value, d.message],
        );
        const id = ins.rows[0]?.id as string;
        out.fired.push(notice(id, value, d.message, now, null));
        audit.push({
          ...auditActor(SYSTEM_ACTOR),
          action: "alert.fired",
          targetType: "alert_rule",
          targetId: r.id,
          after: { eventId: id, value, threshold: r.threshold, message: d.message },
        });
      } else if (d.action === "resolve" && current) {
        await client.query("UPDATE alert_event SET resolved_at = $2 WHERE id = $1", [current.id, now]);
        out.resolved.push(notice(current.id, value, d.message, current.fired_at, now));
        audit.push({
          ...auditActor(SYSTEM_ACTOR),
          action: "alert.resolved",
          targetType: "alert_rule",
          targetId: r.id,
          after: { eventId: current.id, value, threshold: r.threshold },
        });
      }
    }
    await appendAudit(client, audit, now);
    return out;
  });
}
