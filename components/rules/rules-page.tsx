"use client";

import { useState } from "react";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyNotice } from "@/components/ui/empty-notice";
import { Panel } from "@/components/ui/panel";
import type { RuleStatus, RuleView } from "@/lib/rules/rule-schemas";
import { DryRunCounts } from "./dry-run-counts";
import { RuleEditor } from "./rule-editor";
import { VersionChanges } from "./version-changes";
import { useApplyRule, useApproveRule, useDryRun, usePatchRule, useResumeRule, useRules } from "./queries";

// /rules: the triage rules, the editor, and the four eyes: a draft's approval panel shows exactly the version to
// approve with its dry run; the kill switch is one click for any supervisor or admin.

const STATUS_TONE: Record<RuleStatus, Tone> = { draft: "amber", active: "green", disabled: "slate" };

const person = (p: { email: string | null; id: string | null } | null) => (p ? (p.email ?? p.id ?? "unknown") : "—");

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** The version's standing replay as its approver reviews it: where to, how fast, the canary. */
function replayText(replay: NonNullable<RuleView["replay"]>): string {
  const canary = replay.canary
    ? `; canary: the first ${replay.canary.count} items sent, paused above ${pct(replay.canary.maxFailureRate)} failed (an item waiting for its retry counts as failed)`
    : "; no canary";
  return `${replay.sinkText} at ${replay.ratePerSecond.toLocaleString("en")} records/s${canary}`;
}

/** The rule's replay outcomes, each item that joined in exactly one state. */
function outcomesText(out: RuleView["stats"]["replay"]): string {
  const parts = [
    `${out.joined} joined`,
    `${out.waiting} waiting`,
    ...(out.sending > 0 ? [`${out.sending} sending`] : []),
    `${out.retrying} retrying (failed, to be retried; the canary counts them as failed)`,
    `${out.applied} applied`,
    `${out.duplicate} duplicate (absorbed by dedup)`,
    `${out.failed} failed`,
    `${out.dropped} dropped`,
    ...(out.cancelled > 0 ? [`${out.cancelled} cancelled`] : []),
    ...(out.notReplayable > 0 ? [`${out.notReplayable} approved but not replayable (no broker source, key or spatial kind)`] : []),
  ];
  return `${parts.join(" · ")} · ${out.failedAfterReplay} failed again after replay (7 days)`;
}

/** Whether the rule's standing flow waits for a supervisor (its canary, or the engine's failure check, paused it). */
const held = (r: RuleView) => r.standing?.open === true && r.standing.status === "paused";

function RuleDetails({
  rule,
  userId,
  canApprove,
  canDisable,
}: {
  rule: RuleView;
  userId: string;
  canApprove: boolean;
  canDisable: boolean;
}) {
  const approve = useApproveRule();
  const patch = usePatchRule();
  const apply = useApplyRule();
  const resume = useResumeRule();
  const dry = useDryRun(rule.id, {}, true);
  const flow = rule.standing;
  const out = rule.stats.replay;
  const ownDraft = rule.draftedBy.id === userId;
  return (
    <div className="space-y-2">
      <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-500 dark:text-slate-400">Version</dt>
        <dd>
          v{rule.version} {rule.activeVersion === null ? "(not in force)" : `(v${rule.activeVersion} in force)`}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Match</dt>
        <dd className="font-mono text-xs wrap-anywhere">{JSON.stringify(rule.match)}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Action</dt>
        <dd>{rule.action.type === "quarantine" ? `quarantine: ${rule.action.reason}` : rule.action.type}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Standing replay</dt>
        <dd data-testid="rule-replay">{rule.replay ? replayText(rule.replay) : "none (approved records wait for a batch)"}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Drafted by</dt>
        <dd>{person(rule.draftedBy)}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Approved by</dt>
        <dd>{person(rule.approvedBy)}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Decided</dt>
        <dd>
          {rule.stats.decidedToday} today · {rule.stats.decidedThisWeek} this week · last match{" "}
          {rule.stats.lastMatchAt?.slice(0, 16).replace("T", " ") ?? "never"}
        </dd>
        {flow && (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Flow</dt>
            <dd data-testid="rule-flow">
              <a className="text-sky-800 hover:underline dark:text-sky-200" href={`/replays/${flow.batchId}`}>
                batch {flow.batchId}
              </a>{" "}
              (v{flow.version}){" "}
              <Badge tone={flow.status === "running" ? "green" : flow.status === "paused" ? "amber" : "slate"}>{flow.status}</Badge>
              {!flow.open && " closed to new records"}
              {flow.canary && ` · canary ${flow.canary.state}`}
              {flow.statusReason && <span className="block text-xs text-slate-600 dark:text-slate-300">{flow.statusReason}</span>}
            </dd>
          </>
        )}
        {(flow || out.failedAfterReplay > 0) && (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Replayed</dt>
            <dd data-testid="rule-outcomes">{outcomesText(out)}</dd>
          </>
        )}
      </dl>
      {rule.status === "draft" && rule.version > 1 && <VersionChanges rule={rule} />}
      <section aria-label="Dry run" className="rounded border border-slate-200 p-2 dark:border-slate-700">
        <h3 className="text-xs font-semibold">Dry run of v{rule.version} against the records stored now</h3>
        <DryRunCounts query={dry} />
      </section>
      <div className="flex flex-wrap items-center gap-2">
        {rule.status === "draft" && canApprove && (
          <Button
            variant="approve"
            disabled={ownDraft || approve.isPending}
            title={ownDraft ? "You drafted this version: another supervisor approves it (four eyes)" : undefined}
            onClick={() => approve.mutate({ id: rule.id, version: rule.version })}
          >
            Approve v{rule.version}
          </Button>
        )}
        {rule.status === "active" && canApprove && rule.action.type !== "leave" && dry.data && (
          <Button
            disabled={apply.isPending || dry.data.decided === 0}
            onClick={() => {
              if (window.confirm(`Apply ${rule.name} v${rule.activeVersion} to the ${dry.data!.decided} matching records now?`))
                apply.mutate({ id: rule.id, version: rule.activeVersion! });
            }}
          >
            Apply to the {dry.data.decided.toLocaleString("en")} matching now
          </Button>
        )}
        {held(rule) && canApprove && (
          <Button
            variant="approve"
            disabled={resume.isPending}
            onClick={() => {
              if (window.confirm(`Resume ${rule.name}'s standing replay? Its canary watches the next items again.`))
                resume.mutate({ id: rule.id });
            }}
          >
            Resume replay
          </Button>
        )}
        {rule.status !== "disabled" && canDisable && (
          <Button variant="danger" disabled={patch.isPending} onClick={() => patch.mutate({ id: rule.id, body: { enabled: false } })}>
            Disable
          </Button>
        )}
        {rule.status === "disabled" && canApprove && (
          <Button disabled={patch.isPending} onClick={() => patch.mutate({ id: rule.id, body: { enabled: true } })}>
            Enable (needs a second supervisor)
          </Button>
        )}
      </div>
    </div>
  );
}

export function RulesPage({
  initial,
  renderedAt,
  userId,
  canApprove,
  canDisable,
  selected: initialSelected,
}: {
  initial: RuleView[];
  renderedAt: number;
  userId: string;
  canApprove: boolean;
  canDisable: boolean;
  selected: string | null;
}) {
  const rules = useRules(initial, renderedAt).data ?? initial;
  const [selected, setSelected] = useState<string | null>(initialSelected);
  const [editing, setEditing] = useState<"new" | "change" | null>(null);
  const rule = rules.find((r) => r.id === selected) ?? null;
  return (
    <div className="space-y-3">
      <Panel
        id="rules-list"
        title="Rules"
        aside={canApprove && <Button onClick={() => (setSelected(null), setEditing("new"))}>New rule</Button>}
      >
        {rules.length === 0 ? (
          <EmptyNotice>No rules yet. A supervisor drafts one; another approves it.</EmptyNotice>
        ) : (
          <table className="w-full text-sm">
            <thead className="text-left text-xs text-slate-500 dark:text-slate-400">
              <tr>
                <th className="py-1">Name</th>
                <th>Status</th>
                <th>Version</th>
                <th>Action</th>
                <th>Today</th>
                <th>This week</th>
                <th>Replayed</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r) => (
                <tr key={r.id} aria-selected={r.id === selected} className="border-t border-slate-100 dark:border-slate-800">
                  <td className="py-1">
                    <button
                      type="button"
                      className="font-medium text-sky-800 hover:underline dark:text-sky-200"
                      onClick={() => (setSelected(r.id), setEditing(null))}
                    >
                      {r.name}
                    </button>
                  </td>
                  <td>
                    <Badge tone={STATUS_TONE[r.status]}>{r.status}</Badge>
                  </td>
                  <td>v{r.version}</td>
                  <td>{r.action.type}</td>
                  <td>{r.stats.decidedToday}</td>
                  <td>{r.stats.decidedThisWeek}</td>
                  <td>
                    {r.standing ? (
                      <>
                        {r.stats.replay.applied + r.stats.replay.duplicate}/{r.stats.replay.joined}
                        {r.stats.replay.retrying > 0 && ` · ${r.stats.replay.retrying} retrying`}
                        {r.stats.replay.failed > 0 && ` · ${r.stats.replay.failed} failed`}
                        {held(r) && (
                          <>
                            {" "}
                            <Badge tone="amber">paused</Badge>
                          </>
                        )}
                      </>
                    ) : (
                      "—"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      {editing === "new" && (
        <Panel
          id="rule-new"
          title="New rule"
          description="Its first version is a draft: it decides nothing until another supervisor approves it."
        >
          <RuleEditor rule={null} onSaved={(id) => (setSelected(id), setEditing(null))} />
        </Panel>
      )}
      {rule && (
        <Panel
          id="rule-detail"
          title={`Rule ${rule.name}`}
          aside={canApprove && editing !== "change" && <Button onClick={() => setEditing("change")}>Change</Button>}
        >
          {editing === "change" ? (
            <RuleEditor key={`${rule.id}:${rule.version}`} rule={rule} onSaved={() => setEditing(null)} />
          ) : (
            <RuleDetails rule={rule} userId={userId} canApprove={canApprove} canDisable={canDisable} />
          )}
        </Panel>
      )}
    </div>
  );
}
