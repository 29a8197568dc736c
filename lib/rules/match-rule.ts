import { tapIssuesOf, validateTap, type TapIssue } from "../afc/tap-schema";
import { areaChange } from "../spatial/area-change";
import type { DeadLetterKind, DeadLetterStatus, FailureClass, RepairMethod, RepairPolicy, SpatialAnalysis } from "../vocabulary/record";
import type { RuleAction, RuleMatch } from "./rule-schemas";

// What a triage rule does to one record, decided on what the store, a dry run and an apply all know about it.
// Pure: the store step calls it inside its transaction, the dry run and the apply job per page, the browser to
// explain a skip. Skip reasons are fixed sentences per criterion (no numbers of the record's own), so a dry run's
// skipped records group by them.

/** The analysis fields a rule reads. */
export type RuleAnalysis = Pick<
  SpatialAnalysis,
  "outcome" | "method" | "policy" | "type_changed" | "type_before" | "type_after" | "area_before" | "area_after" | "dropped_parts"
>;

/** What a rule knows of a record. */
export interface RecordFacts {
  kind: DeadLetterKind;
  status: DeadLetterStatus;
  source: string;
  /** the broker source it was pulled from (dead_letter.origin_source) */
  originSource: string | null;
  reasonGroup: string;
  /** the reason as stored */
  reason: string;
  /** AFC: the working payload (the tap), whose tap-schema issues afcIssues matches */
  tap?: unknown;
  /** AFC: the tap's issues when already known (afcIssuesOf, computed where the tap was normalized) */
  afcIssues?: TapIssue[];
  failureClass: FailureClass;
  /** spatial: as ingest stored it (the source's method and policy) */
  analysis: RuleAnalysis | null;
}

export type RuleOutcome =
  /** not the rule's business: another kind, source, reason… or already decided */
  | { kind: "out" }
  /** the rule judges a repair other than the stored one: run it (GEOS) and ask again with its analysis */
  | { kind: "needs_analysis"; method: RepairMethod; policy: RepairPolicy }
  | { kind: "skip"; reason: string }
  /** the action applies; `areaChange`: of the repair it judged (approvals of spatial records), null when none */
  | { kind: "decide"; areaChange: number | null; repair: { method: RepairMethod; policy: RepairPolicy } | null };

export const SKIP = {
  poison: "poison records cannot be approved",
  noAnalysis: "no geometry analysis (the payload is not a usable Feature)",
  dropped: "the repair delivers nothing",
  typeChanges: "the repair changes the geometry type",
  areaUnknown: "the input's area is zero: the area change cannot be measured",
  area: (max: number) => `the area changes by more than ${formatShare(max)}`,
  dropsParts: (max: number) => `the repair drops more than ${max} part${max === 1 ? "" : "s"}`,
} as const;

const formatShare = (x: number) => `${Math.round(x * 100_000) / 1000}%`;

/** A tap's issues under the tap schema now (lib/afc/tap-schema.ts): each field, and its `field: message` entry. */
export function afcIssuesOf(tap: unknown): TapIssue[] {
  return tapIssuesOf(validateTap(tap));
}

/** Whether a record of this kind, source and reason group may be in the rule's scope (what ingest knows before storing). */
export function mayMatch(m: RuleMatch, r: Pick<RecordFacts, "kind" | "source" | "reasonGroup">): boolean {
  if (m.kind !== undefined && m.kind !== r.kind) return false;
  if (m.source !== undefined && m.source !== r.source) return false;
  if (m.reason !== undefined && m.reason !== r.reasonGroup) return false;
  if ((m.repair !== undefined && r.kind !== "spatial") || (m.afcIssues !== undefined && r.kind !== "afc")) return false;
  return true;
}

/** A record's tap issues, once per record however many rules ask (the store judges every arrival by each rule). */
const issuesSeen = new WeakMap<RecordFacts, TapIssue[]>();
function tapIssues(r: RecordFacts): TapIssue[] {
  let issues = r.afcIssues ?? issuesSeen.get(r);
  if (!issues) issuesSeen.set(r, (issues = afcIssuesOf(r.tap)));
  return issues;
}

/** A rule's issue list as a set, once per rule (it is asked about every arriving tap). */
const issueSets = new WeakMap<readonly string[], Set<string>>();
function allowedIssues(list: readonly string[]): Set<string> {
  let set = issueSets.get(list);
  if (!set) issueSets.set(list, (set = new Set(list)));
  return set;
}

function inScope(m: RuleMatch, r: RecordFacts): boolean {
  if (r.status !== "pending" || !mayMatch(m, r)) return false;
  if (m.origin !== undefined && m.origin !== r.originSource) return false;
  if (m.class !== undefined && m.class !== r.failureClass) return false;
  if (m.afcIssues !== undefined) {
    const allowed = allowedIssues(m.afcIssues);
    const issues = tapIssues(r);
    if (issues.length === 0 || !issues.every((i) => allowed.has(i.field) || allowed.has(i.entry))) return false;
  }
  return true;
}

/** The repair a rule judges a spatial record by: its own settings where given, the stored analysis's otherwise. */
export function judgedRepair(m: RuleMatch, a: Pick<RuleAnalysis, "method" | "policy">): { method: RepairMethod; policy: RepairPolicy } {
  return { method: m.repair?.method ?? a.method, policy: m.repair?.policy ?? a.policy };
}

/**
 * The rule's verdict on one record. `analysis`: the judged repair's analysis when it is not the stored one (the
 * caller ran it after a `needs_analysis`).
 */
export function matchRule(rule: { match: RuleMatch; action: RuleAction }, r: RecordFacts, analysis?: RuleAnalysis): RuleOutcome {
  const { match: m, action } = rule;
  if (!inScope(m, r)) return { kind: "out" };
  if (action.type === "approve" && r.failureClass === "poison") return { kind: "skip", reason: SKIP.poison };
  // Only a spatial approval or a repair criterion asks what the repair does.
  if (r.kind !== "spatial" || (m.repair === undefined && action.type !== "approve")) {
    return { kind: "decide", areaChange: null, repair: null };
  }
  const stored = r.analysis;
  if (!stored) return { kind: "skip", reason: SKIP.noAnalysis };
  const repair = judgedRepair(m, stored);
  // A valid input is valid under every repair (none runs, no policy applies): the stored analysis answers for all.
  const a = stored.outcome === "valid" || (repair.method === stored.method && repair.policy === stored.policy) ? stored : analysis;
  if (!a) return { kind: "needs_analysis", ...repair };
  return judgeRepair(m, a, repair);
}

/**
 * matchRule's last step: the verdict on the analysis of the repair judged (`repair`), for a record already known to
 * be in the rule's scope and to need it (a dry run whose SQL told those records apart: judge-in-sql.ts).
 */
export function judgeRepair(
  m: RuleMatch,
  a: RuleAnalysis,
  repair: { method: RepairMethod; policy: RepairPolicy },
): Exclude<RuleOutcome, { kind: "out" } | { kind: "needs_analysis" }> {
  if (a.outcome === "dropped") return { kind: "skip", reason: SKIP.dropped };
  const criteria = m.repair ?? {};
  const change = a.outcome === "valid" ? 0 : areaChange(a);
  if (criteria.sameType && typeChanges(a)) return { kind: "skip", reason: SKIP.typeChanges };
  if (criteria.maxAreaChange !== undefined) {
    if (change === null) return { kind: "skip", reason: SKIP.areaUnknown };
    if (Math.abs(change) > criteria.maxAreaChange) return { kind: "skip", reason: SKIP.area(criteria.maxAreaChange) };
  }
  if (criteria.maxDroppedParts !== undefined && a.dropped_parts > criteria.maxDroppedParts) {
    return { kind: "skip", reason: SKIP.dropsParts(criteria.maxDroppedParts) };
  }
  return { kind: "decide", areaChange: change, repair };
}

/**
 * Whether what the repair delivers has another type than what was received. `type_changed` also flags a repair
 * whose policy brought the type back (largest-part of a MultiPolygon repair delivers a Polygon again): the types
 * themselves decide when both are known.
 */
function typeChanges(a: RuleAnalysis): boolean {
  return a.type_before != null && a.type_after != null ? a.type_before !== a.type_after : a.type_changed;
}

/** Upper bounds of the dry run's area-change distribution (absolute share); beyond the last: "more". */
export const AREA_BUCKETS = [0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5] as const;

/** The distribution bucket of an area change: the smallest bound it stays within, "more" or "unknown". */
export function areaBucket(change: number | null): string {
  if (change === null) return "unknown";
  const abs = Math.abs(change);
  const bound = AREA_BUCKETS.find((b) => abs <= b);
  return bound === undefined ? "more" : String(bound);
}
