"use client";

import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { CLASSES, KINDS, REPAIR_METHODS, REPAIR_POLICIES } from "@/lib/vocabulary/record";
import {
  CreateRuleBodySchema,
  RuleActionSchema,
  RuleMatchSchema,
  RuleReplaySchema,
  type RuleAction,
  type RuleMatch,
  type RuleReplay,
  type RuleView,
} from "@/lib/rules/rule-schemas";
import { SINKS } from "@/lib/replay/sinks/registry";
import { DryRunCounts } from "./dry-run-counts";
import { useCreateRule, useDryRun, usePatchRule } from "./queries";

// The rule editor: a new rule's first version, or a change to the selected one (a new version). The live counts
// are a dry run of what is typed (debounced), against the records stored now; a new rule gets them once drafted.

interface Draft {
  name: string;
  kind: string;
  source: string;
  origin: string;
  reason: string;
  cls: string;
  afcIssues: string;
  method: string;
  policy: string;
  sameType: boolean;
  maxAreaPct: string;
  maxDroppedParts: string;
  action: RuleAction["type"];
  quarantineReason: string;
  /** the standing replay's sink type; "keep": the version's as it is (a change), "": none */
  replaySink: string;
  /** the sink's other settings, JSON (e.g. {"url": "https://…"} for HTTP) */
  replaySettings: string;
  replayRate: string;
  canaryCount: string;
  canaryPct: string;
}

function draftOf(rule: RuleView | null): Draft {
  const m = rule?.match ?? {};
  const pct = m.repair?.maxAreaChange;
  return {
    name: rule?.name ?? "",
    kind: m.kind ?? "",
    source: m.source ?? "",
    origin: m.origin ?? "",
    reason: m.reason ?? "",
    cls: m.class ?? "",
    afcIssues: m.afcIssues?.join(", ") ?? "",
    method: m.repair?.method ?? "",
    policy: m.repair?.policy ?? "",
    sameType: m.repair?.sameType ?? false,
    maxAreaPct: pct === undefined ? "" : String(Math.round(pct * 100_000) / 1000),
    maxDroppedParts: m.repair?.maxDroppedParts === undefined ? "" : String(m.repair.maxDroppedParts),
    action: rule?.action.type ?? "approve",
    quarantineReason: rule?.action.type === "quarantine" ? rule.action.reason : "",
    // A change keeps the version's replay unless another is chosen: its sink's secrets are not shown to edit.
    replaySink: rule?.replay ? "keep" : "",
    replaySettings: "",
    replayRate: rule?.replay ? String(rule.replay.ratePerSecond) : "10",
    canaryCount: rule?.replay?.canary ? String(rule.replay.canary.count) : "",
    canaryPct: rule?.replay?.canary ? String(rule.replay.canary.maxFailureRate * 100) : "",
  };
}

/** The draft's standing replay: undefined keeps the version's, null is none. */
function replayOf(d: Draft): { ok: true; replay: RuleReplay | null | undefined } | { ok: false; message: string } {
  // Only an approving rule replays: another action drops the version's replay.
  if (d.replaySink === "" || d.action !== "approve") return { ok: true, replay: null };
  if (d.replaySink === "keep") return { ok: true, replay: undefined };
  let settings: unknown = {};
  if (d.replaySettings.trim() !== "") {
    try {
      settings = JSON.parse(d.replaySettings);
    } catch {
      return { ok: false, message: "replay: the sink settings are not JSON" };
    }
  }
  const parsed = RuleReplaySchema.safeParse({
    sink: { ...(typeof settings === "object" && settings !== null ? settings : {}), type: d.replaySink },
    ratePerSecond: Number(d.replayRate),
    canary: d.canaryCount.trim() === "" ? undefined : { count: Number(d.canaryCount), maxFailureRate: Number(d.canaryPct || "0") / 100 },
  });
  if (!parsed.success) return { ok: false, message: `replay: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  return { ok: true, replay: parsed.data };
}

const orUndefined = (s: string) => (s.trim() === "" ? undefined : s.trim());

/** The draft as the API's match and action, or the first problem with it. */
function bodyOf(d: Draft): { ok: true; match: RuleMatch; action: RuleAction } | { ok: false; message: string } {
  const repair = {
    method: orUndefined(d.method),
    policy: orUndefined(d.policy),
    sameType: d.sameType || undefined,
    maxAreaChange: d.maxAreaPct.trim() === "" ? undefined : Number(d.maxAreaPct) / 100,
    maxDroppedParts: d.maxDroppedParts.trim() === "" ? undefined : Number(d.maxDroppedParts),
  };
  const hasRepair = Object.values(repair).some((v) => v !== undefined);
  const issues = d.afcIssues
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const match = RuleMatchSchema.safeParse({
    kind: orUndefined(d.kind),
    source: orUndefined(d.source),
    origin: orUndefined(d.origin),
    reason: orUndefined(d.reason),
    class: orUndefined(d.cls),
    afcIssues: issues.length ? issues : undefined,
    repair: hasRepair ? repair : undefined,
  });
  if (!match.success) return { ok: false, message: `match: ${match.error.issues[0]?.message ?? "invalid"}` };
  const action = RuleActionSchema.safeParse(
    d.action === "quarantine" ? { type: d.action, reason: d.quarantineReason } : { type: d.action },
  );
  if (!action.success) return { ok: false, message: `action: ${action.error.issues[0]?.message ?? "invalid"}` };
  return { ok: true, match: match.data, action: action.data };
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

const INPUT = "w-full rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-950";

function Field({ label, children, hint }: { label: string; children: (id: string) => React.ReactNode; hint?: string }) {
  const id = `rule-${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <div className="space-y-0.5">
      <label htmlFor={id} className="block text-xs font-medium text-slate-600 dark:text-slate-300">
        {label}
      </label>
      {children(id)}
      {hint && <p className="text-xs text-slate-500 dark:text-slate-400">{hint}</p>}
    </div>
  );
}

function Choice({
  id,
  value,
  options,
  onChange,
}: {
  id: string;
  value: string;
  options: readonly string[];
  onChange: (v: string) => void;
}) {
  return (
    <select id={id} className={INPUT} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">any</option>
      {options.map((o) => (
        <option key={o} value={o}>
          {o}
        </option>
      ))}
    </select>
  );
}

export function RuleEditor({ rule, onSaved }: { rule: RuleView | null; onSaved: (id: string) => void }) {
  const [d, setD] = useState<Draft>(() => draftOf(rule));
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD((x) => ({ ...x, [k]: v }));
  const body = bodyOf(d);
  const replay = replayOf(d);
  const live = useDebounced(body.ok ? { match: body.match, action: body.action } : null, 400);
  const counts = useDryRun(rule?.id ?? null, live ?? {}, live !== null);
  const create = useCreateRule();
  const patch = usePatchRule();
  const save = () => {
    if (!body.ok || !replay.ok) return;
    const withReplay = replay.replay === undefined ? {} : { replay: replay.replay };
    if (rule)
      patch.mutate({ id: rule.id, body: { match: body.match, action: body.action, ...withReplay } }, { onSuccess: (r) => onSaved(r.id) });
    else {
      const parsed = CreateRuleBodySchema.safeParse({
        name: d.name,
        match: body.match,
        action: body.action,
        ...(replay.replay ? { replay: replay.replay } : {}),
      });
      if (parsed.success) create.mutate(parsed.data, { onSuccess: (r) => onSaved(r.id) });
    }
  };
  return (
    <form
      aria-label={rule ? `Change rule ${rule.name}` : "New rule"}
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <div className="grid gap-2 sm:grid-cols-2 lg:grid-cols-3">
        {!rule && (
          <Field label="Name">
            {(id) => <input id={id} className={INPUT} value={d.name} onChange={(e) => set("name", e.target.value)} />}
          </Field>
        )}
        <Field label="Kind">{(id) => <Choice id={id} value={d.kind} options={KINDS} onChange={(v) => set("kind", v)} />}</Field>
        <Field label="Source">
          {(id) => <input id={id} className={INPUT} value={d.source} onChange={(e) => set("source", e.target.value)} />}
        </Field>
        <Field label="Broker source" hint="the list's origin filter">
          {(id) => <input id={id} className={INPUT} value={d.origin} onChange={(e) => set("origin", e.target.value)} />}
        </Field>
        <Field label="Reason group">
          {(id) => <input id={id} className={INPUT} value={d.reason} onChange={(e) => set("reason", e.target.value)} />}
        </Field>
        <Field label="Class">{(id) => <Choice id={id} value={d.cls} options={CLASSES} onChange={(v) => set("cls", v)} />}</Field>
        <Field label="AFC issues" hint="fields or 'field: message', comma-separated">
          {(id) => <input id={id} className={INPUT} value={d.afcIssues} onChange={(e) => set("afcIssues", e.target.value)} />}
        </Field>
        <Field label="Repair method" hint="empty: the source's, as stored">
          {(id) => <Choice id={id} value={d.method} options={REPAIR_METHODS} onChange={(v) => set("method", v)} />}
        </Field>
        <Field label="Repair policy">
          {(id) => <Choice id={id} value={d.policy} options={REPAIR_POLICIES} onChange={(v) => set("policy", v)} />}
        </Field>
        <Field label="Max area change (%)">
          {(id) => (
            <input
              id={id}
              type="number"
              min={0}
              step="any"
              className={INPUT}
              value={d.maxAreaPct}
              onChange={(e) => set("maxAreaPct", e.target.value)}
            />
          )}
        </Field>
        <Field label="Max dropped parts">
          {(id) => (
            <input
              id={id}
              type="number"
              min={0}
              className={INPUT}
              value={d.maxDroppedParts}
              onChange={(e) => set("maxDroppedParts", e.target.value)}
            />
          )}
        </Field>
        <label className="flex items-center gap-2 self-end text-sm">
          <input type="checkbox" checked={d.sameType} onChange={(e) => set("sameType", e.target.checked)} />
          Repair keeps the geometry type
        </label>
        <Field label="Action">
          {(id) => (
            <select id={id} className={INPUT} value={d.action} onChange={(e) => set("action", e.target.value as Draft["action"])}>
              <option value="approve">approve (pins the repair it matched on)</option>
              <option value="quarantine">quarantine</option>
              <option value="leave">leave (count only)</option>
            </select>
          )}
        </Field>
        {d.action === "quarantine" && (
          <Field label="Quarantine reason">
            {(id) => (
              <input id={id} className={INPUT} value={d.quarantineReason} onChange={(e) => set("quarantineReason", e.target.value)} />
            )}
          </Field>
        )}
      </div>
      {d.action === "approve" && (
        <fieldset className="grid gap-2 rounded border border-slate-200 p-2 sm:grid-cols-2 lg:grid-cols-3 dark:border-slate-700">
          <legend className="px-1 text-xs font-semibold">Standing replay of what it approves (part of the version)</legend>
          <Field label="Replay sink" hint="approved records flow into one paced batch, approved with this version">
            {(id) => (
              <select id={id} className={INPUT} value={d.replaySink} onChange={(e) => set("replaySink", e.target.value)}>
                <option value="">none</option>
                {rule?.replay && (
                  <option value="keep">
                    as in v{rule.version}: {rule.replay.sinkText}
                  </option>
                )}
                {SINKS.map((p) => (
                  <option key={p.type} value={p.type}>
                    {p.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {d.replaySink !== "" && d.replaySink !== "keep" && (
            <Field label="Sink settings (JSON)" hint='the sink&apos;s fields as a batch takes them, e.g. {"url": "https://…"}'>
              {(id) => <input id={id} className={INPUT} value={d.replaySettings} onChange={(e) => set("replaySettings", e.target.value)} />}
            </Field>
          )}
          {d.replaySink !== "" && d.replaySink !== "keep" && (
            <>
              <Field label="Replay rate (records/s)">
                {(id) => (
                  <input
                    id={id}
                    type="number"
                    min={0}
                    step="any"
                    className={INPUT}
                    value={d.replayRate}
                    onChange={(e) => set("replayRate", e.target.value)}
                  />
                )}
              </Field>
              <Field label="Canary items" hint="empty: no canary">
                {(id) => (
                  <input
                    id={id}
                    type="number"
                    min={1}
                    className={INPUT}
                    value={d.canaryCount}
                    onChange={(e) => set("canaryCount", e.target.value)}
                  />
                )}
              </Field>
              <Field label="Canary max failed (%)">
                {(id) => (
                  <input
                    id={id}
                    type="number"
                    min={0}
                    max={100}
                    step="any"
                    className={INPUT}
                    value={d.canaryPct}
                    onChange={(e) => set("canaryPct", e.target.value)}
                  />
                )}
              </Field>
            </>
          )}
        </fieldset>
      )}
      {!body.ok && <p className="text-xs text-amber-700 dark:text-amber-300">{body.message}</p>}
      {!replay.ok && <p className="text-xs text-amber-700 dark:text-amber-300">{replay.message}</p>}
      <div className="flex items-center gap-2">
        <Button type="submit" variant="primary" disabled={!body.ok || !replay.ok || create.isPending || patch.isPending}>
          {rule ? "Save as a new version" : "Save draft"}
        </Button>
        <span className="text-xs text-slate-500 dark:text-slate-400">
          {rule ? "A change is a new version: it decides nothing until another supervisor approves it." : "Another supervisor approves it."}
        </span>
      </div>
      {rule && (
        <section aria-label="Live dry run" className="rounded border border-slate-200 p-2 dark:border-slate-700">
          <h3 className="text-xs font-semibold">Live dry run of this draft</h3>
          <DryRunCounts query={counts} />
        </section>
      )}
    </form>
  );
}
