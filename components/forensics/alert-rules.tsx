"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ColumnHeaders, DividedBody, FramedTable } from "@/components/ui/table";
import type { AlertEventView, AlertRuleView } from "@/lib/ops/alerts/alert-rules";
import { RULE_ALERT_METRICS } from "@/lib/forensics/forensics-schemas";
import { useAlerts, useCreateAlertRule, useDeleteAlertRule, useUpdateAlertRule } from "./queries";

// Alert rules (editable by supervisors) and the latest alert events. Thresholds are in the metric's unit:
// poison records per window, unresolved records, hours. A team's rule counts its team's records; a supervisor in
// teams edits their teams' rules and copies a company-wide rule for a team (lib/ops/alerts/alert-scope.ts).

interface Team {
  id: string;
  name: string;
}

const UNIT: Record<AlertRuleView["metric"], string> = {
  poison_growth: "poison records in the window",
  dlq_size: "unresolved records",
  oldest_age: "hours",
  source_down: "sources failing",
  rule_canary: "(a rule's canary failed)",
  rule_refailure: "records of one rule failing again in the window",
};

/**
 * A decimal as typed: "1,5" with a decimal comma (a German keyboard's decimal keypad offers only ",") is 1.5.
 * Number("1,5") was NaN, sent as null, and the save failed with "expected number, received null".
 */
const decimal = (text: string) => Number(/^\s*[+-]?\d*,\d+\s*$/.test(text) ? text.replace(",", ".") : text);

function CopyForTeam({ rule, teams }: { rule: AlertRuleView; teams: Team[] }) {
  const create = useCreateAlertRule();
  const [teamId, setTeamId] = useState(teams[0]?.id ?? "");
  const team = teams.find((t) => t.id === teamId);
  if (!team) return null;
  const copy = () =>
    create.mutate({
      teamId: team.id,
      name: `${rule.name || rule.id} (${team.name})`,
      metric: rule.metric,
      threshold: rule.threshold,
      windowMinutes: rule.windowMinutes,
      enabled: rule.enabled,
    });
  return (
    <span className="inline-flex items-center gap-1">
      {teams.length > 1 && (
        <select
          aria-label={`${rule.id} copy for team`}
          className="rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-1 py-0.5 text-xs"
          value={teamId}
          onChange={(e) => setTeamId(e.target.value)}
        >
          {teams.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      )}
      <Button size="sm" variant="ghost" onClick={copy} disabled={create.isPending}>
        Copy for {teams.length > 1 ? "team" : team.name}
      </Button>
    </span>
  );
}

function RuleRow({ rule, canManage, scoped, teams }: { rule: AlertRuleView; canManage: boolean; scoped: boolean; teams: Team[] }) {
  const update = useUpdateAlertRule();
  const remove = useDeleteAlertRule();
  // A company-wide rule as a member of teams sees it: its value counts other teams' records and is not sent. An
  // alert about one triage rule comes with its event when the triage rule is the reader's (alert-rules.ts).
  const wide = scoped && rule.teamId === null;
  const eventDriven = RULE_ALERT_METRICS.includes(rule.metric);
  const hidden = wide && !eventDriven;
  const canEdit = canManage && !wide;
  const [threshold, setThreshold] = useState(String(rule.threshold));
  const [windowMinutes, setWindowMinutes] = useState(String(rule.windowMinutes));
  const [webhookUrl, setWebhookUrl] = useState(rule.webhookUrl ?? "");
  const save = () =>
    update.mutate({
      id: rule.id,
      patch: {
        threshold: decimal(threshold),
        windowMinutes: Number(windowMinutes),
        webhookUrl: webhookUrl.trim() === "" ? null : webhookUrl.trim(),
      },
    });
  const input =
    "w-24 rounded border border-slate-300 dark:border-slate-600 px-1.5 py-0.5 text-sm disabled:cursor-not-allowed disabled:bg-slate-50 dark:disabled:bg-slate-800 disabled:text-slate-500 dark:disabled:text-slate-400";
  return (
    <tr>
      <td className="px-3 py-2">
        <p className="font-medium">{rule.name || rule.id}</p>
        <p className="text-xs text-slate-500 dark:text-slate-400">{rule.metric}</p>
      </td>
      <td className="px-3 py-2">
        {rule.team ?? <span className="whitespace-nowrap text-slate-500 dark:text-slate-400">company-wide</span>}
      </td>
      <td className="px-3 py-2">
        {/* "ok" only once a worker has evaluated the rule: never evaluated means no worker runs housekeeping. */}
        {rule.firing ? (
          <Badge tone="red">firing</Badge>
        ) : hidden ? (
          <span title="Counted over every team's records: shown to supervisors in no team">
            <Badge tone="slate">value not shown</Badge>
          </span>
        ) : !rule.enabled ? (
          <Badge tone="slate">off</Badge>
        ) : rule.lastEvaluatedAt === null && eventDriven ? (
          <span title="Raised by the replay step when a rule's canary trips or its records fail again; checked each housekeeping round">
            <Badge tone="slate">
              {rule.metric === "rule_canary" ? "fires when a rule’s canary trips" : "fires when a rule’s records fail again"}
            </Badge>
          </span>
        ) : rule.lastEvaluatedAt === null ? (
          <span title="No worker has evaluated this rule yet: start `npx redrive worker` or `npm start`">
            <Badge tone="slate">not evaluated</Badge>
          </span>
        ) : (
          <Badge tone="green">ok</Badge>
        )}
        <p className="text-xs text-slate-500 dark:text-slate-400 tabular-nums">
          now {rule.lastValue === null ? "—" : Math.round(rule.lastValue * 10) / 10}
        </p>
      </td>
      <td className="px-3 py-2">
        <label className="text-xs text-slate-500 dark:text-slate-400">
          <input
            aria-label={`${rule.id} threshold`}
            className={input}
            disabled={!canEdit}
            value={threshold}
            onChange={(e) => setThreshold(e.target.value)}
            inputMode="decimal"
          />{" "}
          {UNIT[rule.metric]}
        </label>
      </td>
      <td className="px-3 py-2">
        <input
          aria-label={`${rule.id} window minutes`}
          className={input}
          disabled={!canEdit || !["poison_growth", "source_down", "rule_refailure"].includes(rule.metric)}
          value={windowMinutes}
          onChange={(e) => setWindowMinutes(e.target.value)}
          inputMode="numeric"
        />
      </td>
      <td className="px-3 py-2">
        <input
          aria-label={`${rule.id} webhook`}
          className={`${input} w-64`}
          disabled={!canEdit}
          placeholder="default (REDRIVE_ALERT_WEBHOOK_URL)"
          value={webhookUrl}
          onChange={(e) => setWebhookUrl(e.target.value)}
        />
      </td>
      <td className="space-x-1 whitespace-nowrap px-3 py-2 text-right">
        {canEdit && (
          <>
            <Button size="sm" onClick={save} disabled={update.isPending}>
              Save
            </Button>
            <Button size="sm" variant="ghost" onClick={() => update.mutate({ id: rule.id, patch: { enabled: !rule.enabled } })}>
              {rule.enabled ? "Disable" : "Enable"}
            </Button>
            {rule.teamId !== null && (
              <Button
                size="sm"
                variant="ghost"
                disabled={remove.isPending}
                onClick={() => {
                  if (window.confirm(`Remove alert rule ${rule.name || rule.id} of ${rule.team ?? "the team"}?`)) remove.mutate(rule.id);
                }}
              >
                Remove
              </Button>
            )}
          </>
        )}
        {canManage && rule.teamId === null && teams.length > 0 && !RULE_ALERT_METRICS.includes(rule.metric) && (
          <CopyForTeam rule={rule} teams={teams} />
        )}
      </td>
    </tr>
  );
}

function Events({ events, scoped }: { events: AlertEventView[]; scoped: boolean }) {
  // A member of teams does not see company-wide alerts firing on other teams' records: "none" would mislead.
  if (events.length === 0)
    return (
      <p className="text-sm text-slate-500 dark:text-slate-400">
        {scoped
          ? "No alert of your teams has fired yet (company-wide alerts over every team are not shown here)."
          : "No alert has fired yet."}
      </p>
    );
  return (
    <ul className="divide-y divide-slate-100 dark:divide-slate-800 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 text-sm">
      {events.map((e) => (
        <li key={e.id} className="flex flex-wrap items-baseline gap-x-3 px-3 py-1.5">
          <time className="text-xs text-slate-500 dark:text-slate-400" dateTime={e.firedAt}>
            {e.firedAt.replace("T", " ").slice(0, 16)} UTC
          </time>
          <span>{e.message}</span>
          {e.resolvedAt ? (
            <Badge tone="green">resolved {e.resolvedAt.replace("T", " ").slice(0, 16)} UTC</Badge>
          ) : (
            <Badge tone="red">open</Badge>
          )}
          <span className="text-xs text-slate-500 dark:text-slate-400">
            {e.deliveredAt
              ? "webhook delivered"
              : e.deliveryError
                ? `webhook failed (${e.deliveryAttempts}×): ${e.deliveryError}`
                : "no webhook delivery"}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function AlertRules({
  initial,
  renderedAt,
  canManage,
  scoped,
  teams,
}: {
  initial: { rules: AlertRuleView[]; events: AlertEventView[] };
  renderedAt: number;
  canManage: boolean;
  /** the reader is in teams: company-wide rules come without values and are not theirs to edit */
  scoped: boolean;
  /** the teams the reader may give a rule to (none: no copying) */
  teams: Team[];
}) {
  const { data } = useAlerts(initial, renderedAt);
  return (
    <div className="space-y-4">
      <FramedTable>
        <ColumnHeaders columns={["Rule", "Team", "State", "Fires above", "Window (min)", "Webhook", { label: "Actions", srOnly: true }]} />
        <DividedBody>
          {data.rules.map((r) => (
            <RuleRow
              key={`${r.id}:${r.threshold}:${r.windowMinutes}:${r.webhookUrl}`}
              rule={r}
              canManage={canManage}
              scoped={scoped}
              teams={teams}
            />
          ))}
        </DividedBody>
      </FramedTable>
      <section aria-labelledby="events-heading" className="space-y-2">
        <h2 id="events-heading" className="text-sm font-semibold">
          Recent alerts
        </h2>
        <Events events={data.events} scoped={scoped} />
      </section>
    </div>
  );
}
