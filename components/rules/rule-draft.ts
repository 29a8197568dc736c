import {
  RuleActionSchema,
  RuleMatchSchema,
  RuleReplaySchema,
  type RuleAction,
  type RuleMatch,
  type RuleReplay,
  type RuleView,
} from "@/lib/rules/rule-schemas";
import { sinkPlug, type SinkType } from "@/lib/replay/sinks/registry";
import { checkedSinkOf, initialSinkInputs, type SinkInputs } from "@/components/replay/sink-form";

// The rule editor's draft as typed, and the API body it makes (match, action, standing replay). Pure: the editor
// (rule-editor.tsx) renders it; rule-draft.test.ts holds what each draft sends.

export interface Draft {
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
  /** every sink's fields as typed, by `type.field` (the replay form's, from the sink registry) */
  sinkInputs: SinkInputs;
  replayRate: string;
  canaryCount: string;
  canaryPct: string;
}

export const KEEP_REPLAY = "keep";

export function draftOf(rule: RuleView | null): Draft {
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
    replaySink: rule?.replay ? KEEP_REPLAY : "",
    sinkInputs: initialSinkInputs(),
    replayRate: rule?.replay ? String(rule.replay.ratePerSecond) : "10",
    canaryCount: rule?.replay?.canary ? String(rule.replay.canary.count) : "",
    canaryPct: rule?.replay?.canary ? String(rule.replay.canary.maxFailureRate * 100) : "",
  };
}

/** The sink the draft picks anew (not "none", not the version's kept one), if any. */
export function pickedSink(d: Draft): SinkType | null {
  return d.action === "approve" && d.replaySink !== "" && d.replaySink !== KEEP_REPLAY ? (d.replaySink as SinkType) : null;
}

/**
 * The draft's standing replay: undefined keeps the version's, null is none. Its problems: the sink's worded as the
 * replay batch form words them (sink.url: …), then the replay's own (replay.ratePerSecond: …).
 */
export function replayOf(d: Draft): { ok: true; replay: RuleReplay | null | undefined } | { ok: false; problems: string[] } {
  // Only an approving rule replays: another action drops the version's replay.
  if (d.replaySink === "" || d.action !== "approve") return { ok: true, replay: null };
  if (d.replaySink === KEEP_REPLAY) return { ok: true, replay: undefined };
  const { sink, problems } = checkedSinkOf(sinkPlug(d.replaySink as SinkType), d.sinkInputs);
  const parsed = RuleReplaySchema.safeParse({
    sink,
    ratePerSecond: Number(d.replayRate),
    canary: d.canaryCount.trim() === "" ? undefined : { count: Number(d.canaryCount), maxFailureRate: Number(d.canaryPct || "0") / 100 },
  });
  const issues = parsed.success ? [] : parsed.error.issues.map((i) => `${["replay", ...i.path].join(".")}: ${i.message}`);
  const all = [...problems, ...issues];
  if (all.length > 0 || !parsed.success) return { ok: false, problems: all };
  return { ok: true, replay: parsed.data };
}

const orUndefined = (s: string) => (s.trim() === "" ? undefined : s.trim());

/** The draft as the API's match and action, or the first problem with it. */
export function bodyOf(d: Draft): { ok: true; match: RuleMatch; action: RuleAction } | { ok: false; message: string } {
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
