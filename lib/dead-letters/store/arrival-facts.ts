import type { RuleAnalysis } from "../../rules/match-rule";
import type { ActiveRule } from "../../rules/rules";
import type { FailureClass, RepairMethod, RepairPolicy, SpatialAnalysis } from "../../vocabulary/record";

// What the active triage rules need to know of an arriving record, gathered where the record was normalized (an
// ingest thread) and carried to the store step with its prepared row: the store then decides in its transaction
// from memory, without reading back what it has just written, and without GEOS (a rule judging another repair
// than the source's finds that repair's analysis here, run on the thread).

/** The active rules as ingest prepares for them: `key` names each rule's active version (versions are immutable). */
export interface ArrivalRules {
  key: string;
  rules: ActiveRule[];
}

export const NO_ARRIVAL_RULES: ArrivalRules = { key: "", rules: [] };

/** The key of a set of active rule versions: a rule's version never changes, so equal keys mean equal rules. */
export const arrivalRulesKey = (rules: readonly { id: string; version: number }[]): string =>
  rules.map((r) => `${r.id}:${r.version}`).join(",");

/** Another repair's analysis of the record, and what an approval with it would pin. */
export interface OtherRepairFacts {
  method: RepairMethod;
  policy: RepairPolicy;
  analysis: RuleAnalysis;
  /** SHA-256 of what that repair delivers (canonical JSON); null when it delivers nothing */
  digest: string | null;
  outcome: "valid" | "repaired" | null;
}

export interface ArrivalFacts {
  /** the rules these facts were gathered for (ArrivalRules.key): the store reads back a record whose key is stale */
  rulesKey: string;
  originSource: string | null;
  failureClass: FailureClass;
  reason: string;
  /** spatial: the analysis as stored */
  analysis: RuleAnalysis | null;
  /** AFC: the tap's issues, when a rule matching issues may look at it */
  afcIssues?: { field: string; entry: string }[];
  /** spatial: SHA-256 of what the stored repair delivers, when a rule may approve the record */
  deliveredDigest?: string | null;
  /** spatial: the other repairs rules judge it by */
  repairs?: OtherRepairFacts[];
}

/** The analysis fields a rule reads, copied (the stored analysis has more). */
export function ruleAnalysisOf(a: SpatialAnalysis): RuleAnalysis {
  return {
    outcome: a.outcome,
    method: a.method,
    policy: a.policy,
    type_changed: a.type_changed,
    type_before: a.type_before,
    type_after: a.type_after,
    area_before: a.area_before,
    area_after: a.area_after,
    dropped_parts: a.dropped_parts,
  };
}
