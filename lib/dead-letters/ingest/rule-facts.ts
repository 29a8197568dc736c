import { sha256Hex } from "../../afc/hash";
import { canonicalJson } from "../../json/canonical";
import type { JsonValue } from "../../json/value";
import { afcIssuesOf, matchRule, mayMatch, type RecordFacts } from "../../rules/match-rule";
import { analyzeGeometry } from "../../spatial/analyze";
import { deliveredFrom } from "../../spatial/delivered-geometry";
import { isFeaturePayload } from "../../spatial/feature-payload";
import type { Geos } from "../../spatial/geos";
import type { NewDeadLetter } from "../../vocabulary/record";
import { ruleAnalysisOf, type ArrivalFacts, type ArrivalRules, type OtherRepairFacts } from "../store/arrival-facts";

// Gathers, on the thread that normalized a record, what the active rules will ask of it at the store step
// (store/arrival-facts.ts). Each rule is asked here as the store will ask it, so only what a rule in scope needs
// is computed: the tap's issues for an issues rule, the digest of the stored repair for an approving one, and —
// the GEOS work — another repair's analysis for a rule judging the record by a repair other than its source's.

const digestOf = (geometry: JsonValue): string => sha256Hex(canonicalJson(geometry));

export function arrivalFacts(r: NewDeadLetter, reasonGroup: string, rules: ArrivalRules, geos: Geos | null): ArrivalFacts {
  const analysis = r.spatial ? ruleAnalysisOf(r.spatial.analysis) : null;
  const facts: ArrivalFacts = {
    rulesKey: rules.key,
    originSource: r.origin?.source ?? null,
    failureClass: r.failureClass,
    reason: r.failureReason,
    analysis,
  };
  const inScope = rules.rules.filter((rule) => mayMatch(rule.match, { kind: r.kind, source: r.source, reasonGroup }));
  if (inScope.length === 0) return facts;
  const record: RecordFacts = {
    kind: r.kind,
    status: r.failureClass === "poison" ? "quarantined" : "pending",
    source: r.source,
    originSource: facts.originSource,
    reasonGroup,
    reason: r.failureReason,
    failureClass: r.failureClass,
    analysis,
  };
  if (r.kind === "afc" && inScope.some((rule) => rule.match.afcIssues !== undefined)) {
    record.afcIssues = facts.afcIssues = r.tapIssues ?? afcIssuesOf(r.payload);
  }
  for (const rule of inScope) {
    const outcome = matchRule(rule, record);
    if (outcome.kind === "needs_analysis") {
      const repairs = (facts.repairs ??= []);
      if (repairs.some((x) => x.method === outcome.method && x.policy === outcome.policy)) continue;
      const other = otherRepair(r.payload, { method: outcome.method, policy: outcome.policy }, geos);
      if (other) repairs.push(other);
    } else if (outcome.kind === "decide" && rule.action.type === "approve" && r.spatial && facts.deliveredDigest === undefined) {
      const delivered = r.spatial.analysis.outcome === "valid" ? payloadGeometry(r.payload) : r.spatial.repairedGeometry;
      facts.deliveredDigest = delivered === null ? null : digestOf(delivered);
    }
  }
  return facts;
}

function payloadGeometry(payload: JsonValue): JsonValue | null {
  return isFeaturePayload(payload) ? (payload.geometry ?? null) : null;
}

/**
 * A record's geometry under another repair (GEOS): its analysis, and the digest of what it delivers
 * (approved-repair.ts). Null when the payload is not a Feature.
 */
export function otherRepair(
  payload: unknown,
  repair: Pick<OtherRepairFacts, "method" | "policy">,
  geos: Geos | null,
  opts: { digest?: boolean } = {},
): OtherRepairFacts | null {
  if (!geos || !isFeaturePayload(payload)) return null;
  return otherRepairOf(payload.geometry, repair, geos, opts);
}

/**
 * otherRepair of a Feature's geometry (undefined: it has none). Without `digest` (a dry run, which only counts
 * verdicts and pins nothing) the digest is left null and what it would cost — the repair copied out of GEOS and
 * built as GeoJSON, canonical JSON, SHA-256 — is not spent.
 */
export function otherRepairOf(
  geometry: unknown,
  repair: Pick<OtherRepairFacts, "method" | "policy">,
  geos: Geos,
  opts: { digest?: boolean } = {},
): OtherRepairFacts {
  const digest = opts.digest !== false;
  const result = analyzeGeometry(geos, geometry, { method: repair.method, policy: repair.policy, deliver: digest });
  const analysis = ruleAnalysisOf(result.analysis);
  if (!digest) {
    // deliveredFrom's verdict without building what it delivers.
    const outcome = result.analysis.outcome === "dropped" ? null : result.analysis.outcome;
    return { method: repair.method, policy: repair.policy, analysis, digest: null, outcome };
  }
  const delivered = deliveredFrom(geometry, result);
  return {
    method: repair.method,
    policy: repair.policy,
    analysis,
    digest: delivered.ok ? digestOf(delivered.geometry) : null,
    outcome: delivered.ok ? delivered.outcome : null,
  };
}
