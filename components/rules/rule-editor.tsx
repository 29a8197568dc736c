"use client";

import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { CLASSES, KINDS, REPAIR_METHODS, REPAIR_POLICIES } from "@/lib/vocabulary/record";
import { CreateRuleBodySchema, type RuleView } from "@/lib/rules/rule-schemas";
import { SINKS, sinkPlug } from "@/lib/replay/sinks/registry";
import { SinkFields } from "@/components/replay/sink-fields";
import { DryRunCounts } from "./dry-run-counts";
import { bodyOf, draftOf, KEEP_REPLAY, pickedSink, replayOf, type Draft } from "./rule-draft";
import { useCreateRule, useDryRun, usePatchRule } from "./queries";

// The rule editor: a new rule's first version, or a change to the selected one (a new version). The live counts
// are a dry run of what is typed (debounced), against the records stored now; a new rule gets them once drafted.
// A standing replay's sink is picked and filled in as in the replay batch form: each sink's own fields, from the
// sink registry (components/replay/sink-fields.tsx), checked with the same words.

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

/** A number field: its text as typed (the draft keeps text; bodyOf and replayOf read it). */
function NumberField({
  label,
  hint,
  value,
  onChange,
  min,
  max,
  step,
}: {
  label: string;
  hint?: string;
  value: string;
  onChange: (v: string) => void;
  min?: number;
  max?: number;
  step?: "any";
}) {
  return (
    <Field label={label} hint={hint}>
      {(id) => (
        <input
          id={id}
          type="number"
          min={min}
          max={max}
          step={step}
          className={INPUT}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
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
  const setSinkInput = (key: string, value: string) => setD((x) => ({ ...x, sinkInputs: { ...x.sinkInputs, [key]: value } }));
  const body = bodyOf(d);
  const replay = replayOf(d);
  const picked = pickedSink(d);
  // The draft's standing replay too: one back to origin counts the approvals that cannot go back.
  const sink = d.replaySink === KEEP_REPLAY ? undefined : d.action === "approve" && d.replaySink !== "" ? d.replaySink : null;
  const live = useDebounced(body.ok ? { match: body.match, action: body.action, ...(sink === undefined ? {} : { sink }) } : null, 400);
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
        <NumberField label="Max area change (%)" min={0} step="any" value={d.maxAreaPct} onChange={(v) => set("maxAreaPct", v)} />
        <NumberField label="Max dropped parts" min={0} value={d.maxDroppedParts} onChange={(v) => set("maxDroppedParts", v)} />
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
                  <option value={KEEP_REPLAY}>
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
          {picked && (
            // The sink's labels read as the editor's own (small, muted); its inputs keep the replay form's look.
            <div className="space-y-1 text-xs text-slate-600 sm:col-span-2 lg:col-span-3 dark:text-slate-300">
              <p className="font-normal text-slate-500 dark:text-slate-400" data-testid="rule-sink-help">
                {sinkPlug(picked).help}
              </p>
              <SinkFields plug={sinkPlug(picked)} inputs={d.sinkInputs} onInput={setSinkInput} afcTaps={0} />
            </div>
          )}
          {picked && (
            <>
              <NumberField label="Replay rate (records/s)" min={0} step="any" value={d.replayRate} onChange={(v) => set("replayRate", v)} />
              <NumberField
                label="Canary items"
                hint="empty: no canary"
                min={1}
                value={d.canaryCount}
                onChange={(v) => set("canaryCount", v)}
              />
              <NumberField
                label="Canary max failed (%)"
                min={0}
                max={100}
                step="any"
                value={d.canaryPct}
                onChange={(v) => set("canaryPct", v)}
              />
            </>
          )}
        </fieldset>
      )}
      {!body.ok && <p className="text-xs text-amber-700 dark:text-amber-300">{body.message}</p>}
      {!replay.ok && (
        <ul aria-label="Standing replay problems" className="list-disc pl-5 text-xs text-amber-700 dark:text-amber-300">
          {replay.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
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
