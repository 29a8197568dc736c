import "server-only";
import type pg from "pg";
import { sha256Hex } from "../../afc/hash";
import { canonicalJson } from "../../json/canonical";
import { copyField } from "../../db/copy-text";
import { compareIds } from "../../db/id-order";
import type { JsonValue } from "../../json/value";
import { matchRule, mayMatch, type RecordFacts, type RuleAnalysis, type RuleOutcome } from "../../rules/match-rule";
import { recordMatches, type ActiveRule } from "../../rules/rules";
import type { DecidedByRule } from "../../rules/rule-schemas";
import type { ApprovedRepair, DeadLetterKind, RepairMethod, RepairPolicy } from "../../vocabulary/record";
import type { ArrivalFacts, OtherRepairFacts } from "./arrival-facts";
import { lockedArrivalRules } from "./arrival-rules";
import type { PreparedRecord } from "./prepare-row";
import { appendToStanding } from "../../rules/standing-queue";

// Triage rules deciding records: at arrival (the store step, in the transaction that stores the batch) and in a
// rule's apply job (page by page). A decision is written as an analyst's is — status, a pinned repair for an
// approval, the version bumped — plus the rule version that made it (decided_by_rule_*), which any later decision
// clears. The write re-checks status, class and version under the row lock, so a record an analyst decided in
// between is left alone.

/** A record as a rule sees it, with what its approval would pin. */
export interface RuleRecord extends RecordFacts {
  id: string;
  version: number;
  /** what a replay of it delivers with the stored repair: the payload's geometry (valid) or the repair */
  delivered: JsonValue | null;
  /** the digest of `delivered`, when ingest computed it (then `delivered` is not read) */
  deliveredDigest?: string | null;
  /** other repairs' analyses, run by ingest before the store (arrival-facts.ts) */
  repairs?: OtherRepairFacts[];
}

/** One decision a rule made. */
export interface RuleDecision {
  id: string;
  /** the version read: the write is refused when the record changed since */
  recordVersion: number;
  rule: ActiveRule;
  action: "approve" | "quarantine";
  pin: ApprovedRepair | null;
  areaChange: number | null;
}

/**
 * The columns a rule reads — the delivered geometry only for spatial records, and only where a decision is pinned
 * (`delivered`: a dry run only counts verdicts, and parsing each record's geometry was its main thread's work).
 */
export function factColumns(opts: { delivered: boolean }): string {
  const delivered = opts.delivered
    ? `CASE WHEN d.kind = 'spatial' THEN CASE WHEN d.analysis->>'outcome' = 'valid' THEN d.payload->'geometry' ELSE d.repaired_geometry END END`
    : "NULL::jsonb";
  return `d.id::text AS id, d.kind, d.status, d.source, d.origin_source, d.reason_group, d.reason, d.failure_class,
  d.version, d.analysis, ${delivered} AS delivered, CASE WHEN d.kind = 'afc' THEN d.payload END AS tap`;
}

/** The columns a rule reads, for a record id $n: factColumns with the delivered geometry. */
export const FACT_COLUMNS = factColumns({ delivered: true });

export interface FactRow {
  id: string;
  kind: DeadLetterKind;
  status: RecordFacts["status"];
  source: string;
  origin_source: string | null;
  reason_group: string;
  reason: string;
  failure_class: RecordFacts["failureClass"];
  version: number;
  analysis: RuleAnalysis | null;
  delivered: JsonValue | null;
  tap: JsonValue | null;
}

export const toRuleRecord = (r: FactRow): RuleRecord => ({
  id: r.id,
  kind: r.kind,
  status: r.status,
  source: r.source,
  originSource: r.origin_source,
  reasonGroup: r.reason_group,
  reason: r.reason,
  failureClass: r.failure_class,
  version: r.version,
  analysis: r.analysis,
  delivered: r.delivered,
  tap: r.tap,
});

/**
 * The pin an approval by the rule stores: the stored repair's settings and the digest of what it delivers, as
 * lib/dead-letters/triage/approved-repair.ts geometryDigest computes it (SHA-256 of the canonical JSON).
 */
export function rulePin(
  r: RuleRecord,
  repair: { method: RepairMethod; policy: RepairPolicy },
  delivered: JsonValue | string,
): ApprovedRepair {
  const outcome = r.analysis?.outcome === "valid" ? "valid" : "repaired";
  const digest = typeof delivered === "string" ? delivered : sha256Hex(canonicalJson(delivered));
  return { method: repair.method, policy: repair.policy, digest, outcome };
}

/** The decision `outcome` stands for, or null (a `leave` rule, a skip, or a repair other than the stored one). */
export function decisionOf(rule: ActiveRule, r: RuleRecord, outcome: RuleOutcome): RuleDecision | null {
  if (outcome.kind !== "decide" || rule.action.type === "leave") return null;
  let pin: ApprovedRepair | null = null;
  if (rule.action.type === "approve" && r.kind === "spatial") {
    // A pin needs the stored repair's geometry; another repair's is not stored (the apply job pins those itself).
    // A valid input is what every repair delivers (matchRule judges it by the stored analysis whatever the method).
    const delivered = r.deliveredDigest ?? r.delivered;
    if (!outcome.repair || delivered === null || r.analysis === null) return null;
    const stored = outcome.repair.method === r.analysis.method && outcome.repair.policy === r.analysis.policy;
    if (!stored && r.analysis.outcome !== "valid") return null;
    pin = rulePin(r, outcome.repair, delivered);
  }
  return { id: r.id, recordVersion: r.version, rule, action: rule.action.type, pin, areaChange: outcome.areaChange };
}

/** Per rule: records in its scope (decided or skipped) and decided. */
type Counts = Map<string, { rule: ActiveRule; matched: number; decided: number }>;

function count(counts: Counts, rule: ActiveRule, decided: boolean): void {
  const c = counts.get(rule.id) ?? { rule, matched: 0, decided: 0 };
  c.matched++;
  if (decided) c.decided++;
  counts.set(rule.id, c);
}

/** The decision of a rule that judged the record by another repair than the stored one (`other`, run by ingest). */
export function otherRepairDecision(rule: ActiveRule, r: RuleRecord, outcome: RuleOutcome, other: OtherRepairFacts): RuleDecision | null {
  if (outcome.kind !== "decide" || rule.action.type === "leave") return null;
  let pin: ApprovedRepair | null = null;
  if (rule.action.type === "approve") {
    if (other.digest === null || other.outcome === null) return null;
    pin = { method: other.method, policy: other.policy, digest: other.digest, outcome: other.outcome };
  }
  return { id: r.id, recordVersion: r.version, rule, action: rule.action.type, pin, areaChange: outcome.areaChange };
}

/**
 * What the store's active rules decide for arriving records: the first rule (oldest first) that decides a record
 * wins; a `leave` rule counts its matches and lets the next rules look. A rule judging a repair other than the
 * stored one decides with that repair's analysis when ingest ran it before the store (`repairs`); without it the
 * arrival is left to a later apply (GEOS has no place inside this transaction).
 */
export function decideRecords(rules: ActiveRule[], records: RuleRecord[]): { decisions: RuleDecision[]; counts: Counts } {
  const decisions: RuleDecision[] = [];
  const counts: Counts = new Map();
  for (const r of records) {
    for (const rule of rules) {
      let outcome = matchRule(rule, r);
      let other: OtherRepairFacts | undefined;
      if (outcome.kind === "needs_analysis") {
        const wanted = outcome;
        other = r.repairs?.find((x) => x.method === wanted.method && x.policy === wanted.policy);
        if (!other) continue;
        outcome = matchRule(rule, r, other.analysis);
      }
      if (outcome.kind === "out" || outcome.kind === "needs_analysis") continue;
      const decision = other ? otherRepairDecision(rule, r, outcome, other) : decisionOf(rule, r, outcome);
      count(counts, rule, decision !== null || (outcome.kind === "decide" && rule.action.type === "leave"));
      if (decision) {
        decisions.push(decision);
        break;
      }
    }
  }
  return { decisions, counts };
}

/**
 * Writes decisions (rows are locked by the UPDATE itself, in id order); returns the ids written. A record no longer
 * pending, poison for an approval, or at another version than read is skipped.
 */
export async function writeRuleDecisions(client: pg.PoolClient, decisions: RuleDecision[], now: Date): Promise<Set<string>> {
  if (decisions.length === 0) return new Set();
  const sorted = [...decisions].sort((a, b) => compareIds(a.id, b.id));
  const { rows } = await client.query<{ id: string }>(
    `UPDATE dead_letter d SET status = u.status, approved_repair = u.pin, version = d.version + 1, updated_at = $7,
       decided_by_rule_id = u.rule_id, decided_by_rule_version = u.rule_version
     FROM unnest($1::bigint[], $2::"DeadLetterStatus"[], $3::jsonb[], $4::bigint[], $5::int[], $6::int[])
       AS u(id, status, pin, rule_id, rule_version, version)
     WHERE d.id = u.id AND d.status = 'pending' AND d.version = u.version
       AND (u.status <> 'approved' OR d.failure_class <> 'poison')
     RETURNING d.id::text AS id`,
    [
      sorted.map((d) => d.id),
      sorted.map((d) => (d.action === "approve" ? "approved" : "quarantined")),
      sorted.map((d) => (d.pin ? JSON.stringify(d.pin) : null)),
      sorted.map((d) => d.rule.id),
      sorted.map((d) => d.rule.version),
      sorted.map((d) => d.recordVersion),
      now,
    ],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * The approvals just written by rules with a standing replay join their open batch, in the deciding transaction
 * (lib/rules/standing-queue.ts). Returns how many records went in.
 */
export async function queueStandingReplays(
  client: pg.PoolClient,
  decisions: RuleDecision[],
  written: Set<string>,
  now: Date,
): Promise<number> {
  const byRule = new Map<string, string[]>();
  for (const d of decisions) {
    if (d.action !== "approve" || !d.rule.replays || !written.has(d.id)) continue;
    byRule.set(d.rule.id, [...(byRule.get(d.rule.id) ?? []), d.id]);
  }
  return byRule.size === 0 ? 0 : appendToStanding(client, byRule, now);
}

/** How a decision names its rule in the API, the timeline, exports and audit events. */
export const decidedBy = (rule: ActiveRule): DecidedByRule => ({
  rule: { id: rule.id, name: rule.name, version: rule.version },
  approvers: rule.approvers,
});

/** A decision's entry in an audit event (the batch's ingest event at arrival, the record's own in an apply). */
export function decisionAudit(d: RuleDecision): { status: string; repair?: ApprovedRepair; reason?: string } & DecidedByRule {
  return {
    status: d.action === "approve" ? "approved" : "quarantined",
    ...(d.pin ? { repair: d.pin } : {}),
    ...(d.rule.action.type === "quarantine" ? { reason: d.rule.action.reason } : {}),
    ...decidedBy(d.rule),
  };
}

/** A new record as the rules see it, from what ingest gathered (its row is version 1, as inserted). */
function fromFacts(id: string, r: PreparedRecord, facts: ArrivalFacts): RuleRecord {
  return {
    id,
    version: 1,
    kind: r.kind,
    status: facts.failureClass === "poison" ? "quarantined" : "pending",
    source: r.source,
    originSource: facts.originSource,
    reasonGroup: r.reasonGroup,
    reason: facts.reason,
    failureClass: facts.failureClass,
    analysis: facts.analysis,
    delivered: null,
    ...(facts.afcIssues ? { afcIssues: facts.afcIssues } : {}),
    ...(facts.deliveredDigest !== undefined ? { deliveredDigest: facts.deliveredDigest } : {}),
    ...(facts.repairs ? { repairs: facts.repairs } : {}),
  };
}

/** What the active rules decided for a batch's records before they were inserted (decideBeforeInsert). */
export interface ArrivalVerdicts {
  rules: ActiveRule[];
  /** the records judged from what ingest gathered, by id */
  judged: Map<string, RuleRecord>;
  /** their decisions, by id: inserted decided */
  decisions: Map<string, RuleDecision>;
  counts: Counts;
}

/** The columns an arriving row takes from its decision (ARRIVAL_COLUMNS), in COPY text, each followed by a tab. */
export const ARRIVAL_COLUMNS = "status, version, approved_repair, decided_by_rule_id, decided_by_rule_version";

export function arrivalFields(status: "pending" | "quarantined", d: RuleDecision | undefined): string {
  if (!d) return `${status}\t1\t\\N\t\\N\t\\N\t`;
  // A record decided at arrival is at version 2 (arrived, decided), as one decided right after it arrived.
  const pin = copyField(d.pin ? canonicalJson(d.pin) : null);
  return `${d.action === "approve" ? "approved" : "quarantined"}\t2\t${pin}\t${d.rule.id}\t${d.rule.version}\t`;
}

/**
 * The store step's first hook, before the batch's rows go in: the active rules (read under the share lock a kill
 * switch waits for) decide the records ingest prepared for them (arrival-facts.ts), from memory. Null when no rule
 * is active.
 */
export async function decideBeforeInsert(
  client: pg.PoolClient,
  batch: { id: string; record: PreparedRecord }[],
): Promise<ArrivalVerdicts | null> {
  const { key, rules } = await lockedArrivalRules(client);
  if (rules.length === 0) return null;
  const judged = new Map<string, RuleRecord>();
  for (const f of batch) {
    const facts = f.record.facts;
    if (facts?.rulesKey === key && rules.some((rule) => mayMatch(rule.match, f.record))) judged.set(f.id, fromFacts(f.id, f.record, facts));
  }
  const { decisions, counts } = decideRecords(rules, [...judged.values()]);
  return { rules, judged, decisions: new Map(decisions.map((d) => [d.id, d])), counts };
}

/**
 * The store step's second hook, once the rows are in: the decisions made before the insert on the records created,
 * and the active rules' decisions on new records ingest gathered nothing for (prepared for rules that changed
 * since, or by a path that gathers nothing), read back and written. Returns the entries for the batch's one ingest
 * event (`rules`, canonical JSON), or null when no rule decided anything.
 */
export async function decideArrivals(
  client: pg.PoolClient,
  fresh: { id: string; record: PreparedRecord }[],
  now: Date,
  verdicts: ArrivalVerdicts | null,
): Promise<string | null> {
  if (fresh.length === 0 || !verdicts) return null;
  const { rules } = verdicts;
  let decided = [...verdicts.decisions.values()];
  let counts = verdicts.counts;
  const created = new Set(fresh.map((f) => f.id));
  if ([...verdicts.judged.keys()].some((id) => !created.has(id))) {
    // Some keys were stored already (those rows did not go in): the verdicts count the records created only.
    const again = decideRecords(
      rules,
      [...verdicts.judged.values()].filter((r) => created.has(r.id)),
    );
    decided = again.decisions;
    counts = again.counts;
  }
  const unknown = fresh.filter((f) => !verdicts.judged.has(f.id) && mayMatchAny(rules, f.record)).map((f) => f.id);
  let written: RuleDecision[] = [];
  if (unknown.length) {
    const { rows } = await client.query<FactRow>(`SELECT ${FACT_COLUMNS} FROM dead_letter d WHERE d.id = ANY($1::bigint[]) ORDER BY d.id`, [
      unknown,
    ]);
    const late = decideRecords(rules, rows.map(toRuleRecord));
    const ok = await writeRuleDecisions(client, late.decisions, now);
    written = late.decisions.filter((d) => ok.has(d.id));
    counts = mergeCounts(counts, late.counts);
    await queueStandingReplays(client, late.decisions, ok, now);
  }
  await queueStandingReplays(client, decided, new Set(decided.map((d) => d.id)), now);
  await recordMatches(
    client,
    [...counts.values()].map((c) => ({ ruleId: c.rule.id, version: c.rule.version, matched: c.matched, decided: c.decided })),
    now,
  );
  const entries = [...decided, ...written].sort((a, b) => compareIds(a.id, b.id));
  return entries.length ? decisionEntriesJson(entries) : null;
}

/**
 * The entries of a batch's ingest event, `[{id, ...decisionAudit(d)}, …]` as canonicalJson writes them, with what
 * is the same for every record of a rule (its name, version, approvers, status, reason) written once per rule: at
 * arrival half the records of a batch may be decided, and sorting each entry's keys was most of what the rules
 * cost ingest's main thread. Members in canonical order: approvers, id, reason, repair, rule, status.
 */
export function decisionEntriesJson(decisions: readonly RuleDecision[]): string {
  const fixed = new Map<string, { head: string; reason: string; tail: string }>();
  const parts: string[] = [];
  for (const d of decisions) {
    const key = `${d.rule.id}/${d.rule.version}/${d.action}`;
    let f = fixed.get(key);
    if (!f) {
      const { approvers, rule } = decidedBy(d.rule);
      const { status, reason } = decisionAudit({ ...d, pin: null });
      f = {
        head: `{"approvers":${canonicalJson(approvers)},"id":`,
        reason: reason === undefined ? "" : `,"reason":${canonicalJson(reason)}`,
        tail: `,"rule":${canonicalJson(rule)},"status":${canonicalJson(status)}}`,
      };
      fixed.set(key, f);
    }
    parts.push(`${f.head}${canonicalJson(d.id)}${f.reason}${d.pin ? `,"repair":${canonicalJson(d.pin)}` : ""}${f.tail}`);
  }
  return `[${parts.join(",")}]`;
}

const mayMatchAny = (rules: ActiveRule[], r: PreparedRecord) => rules.some((rule) => mayMatch(rule.match, r));

function mergeCounts(a: Counts, b: Counts): Counts {
  const out: Counts = new Map([...a].map(([k, v]) => [k, { ...v }]));
  for (const [k, v] of b) {
    const c = out.get(k) ?? { rule: v.rule, matched: 0, decided: 0 };
    c.matched += v.matched;
    c.decided += v.decided;
    out.set(k, c);
  }
  return out;
}
