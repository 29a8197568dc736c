import "server-only";
import type pg from "pg";
import { AREA_BUCKETS, SKIP } from "../../rules/match-rule";
import type { RuleAction, RuleCounts, RuleMatch } from "../../rules/rule-schemas";

// A dry run of a rule that reads only what is stored (its scope's columns and the stored analysis: no tap issues,
// no other repair), counted by PostgreSQL: matchRule's verdict written as one SQL expression, and each range of
// ids one aggregate, instead of every record's facts crossing to this process to be judged one by one.
// rule-judge-sql.test.ts holds the two to the same verdicts on the same records.

/** Whether the rule's verdicts can be computed in SQL: nothing it reads needs the payload or GEOS. */
export function judgeableInSql(m: RuleMatch): boolean {
  return m.afcIssues === undefined && m.repair?.method === undefined && m.repair?.policy === undefined;
}

const num = (field: string) => `(d.analysis->>'${field}')::float8`;

/** areaChange (lib/spatial/area-change.ts) of the stored analysis; 0 for a valid geometry (matchRule). */
const CHANGE = `CASE WHEN d.analysis->>'outcome' = 'valid' THEN 0::float8
  WHEN ${num("area_before")} > 0 AND ${num("area_after")} IS NOT NULL
  THEN (${num("area_after")} - ${num("area_before")}) / ${num("area_before")} END`;

/** typeChanges (match-rule.ts): the types decide when both are known, the flag otherwise. */
const TYPE_CHANGES = `CASE WHEN d.analysis->>'type_before' IS NOT NULL AND d.analysis->>'type_after' IS NOT NULL
  THEN d.analysis->>'type_before' <> d.analysis->>'type_after' ELSE coalesce((d.analysis->>'type_changed')::boolean, false) END`;

/**
 * matchRule's verdict on a record in the rule's SQL scope: '' when the action applies, the skip reason otherwise.
 * `p` adds a parameter and returns its placeholder.
 */
export function verdictSql(m: RuleMatch, action: RuleAction, p: (v: unknown) => string): string {
  const approve = action.type === "approve";
  const cases: string[] = [];
  if (approve) cases.push(`WHEN d.failure_class = 'poison' THEN ${p(SKIP.poison)}`);
  if (m.repair === undefined && !approve) return cases.length ? `CASE ${cases.join(" ")} ELSE '' END` : "''";
  cases.push(
    `WHEN d.kind <> 'spatial' THEN ''`,
    `WHEN d.analysis IS NULL OR jsonb_typeof(d.analysis) <> 'object' THEN ${p(SKIP.noAnalysis)}`,
    `WHEN d.analysis->>'outcome' = 'dropped' THEN ${p(SKIP.dropped)}`,
  );
  const c = m.repair ?? {};
  if (c.sameType) cases.push(`WHEN ${TYPE_CHANGES} THEN ${p(SKIP.typeChanges)}`);
  if (c.maxAreaChange !== undefined) {
    cases.push(`WHEN (${CHANGE}) IS NULL THEN ${p(SKIP.areaUnknown)}`);
    cases.push(`WHEN abs(${CHANGE}) > ${p(c.maxAreaChange)}::float8 THEN ${p(SKIP.area(c.maxAreaChange))}`);
  }
  if (c.maxDroppedParts !== undefined) {
    cases.push(
      `WHEN (d.analysis->>'dropped_parts')::float8 > ${p(c.maxDroppedParts)}::float8 THEN ${p(SKIP.dropsParts(c.maxDroppedParts))}`,
    );
  }
  return `CASE ${cases.join(" ")} ELSE '' END`;
}

/**
 * Of a rule judging another repair (its match names a method or a policy), whether a record in its SQL scope needs
 * that repair run (GEOS) for its verdict: matchRule's `needs_analysis`. Not when the action skips it first (poison,
 * for an approval), when it has no analysis, or when its stored analysis answers for the repair judged: a valid
 * input (valid under every repair), or a stored analysis of the same method and policy.
 */
export function needsOtherRepairSql(m: RuleMatch, action: RuleAction, p: (v: unknown) => string): string {
  const same = [
    m.repair?.method === undefined ? null : `coalesce(d.analysis->>'method' = ${p(m.repair.method)}, false)`,
    m.repair?.policy === undefined ? null : `coalesce(d.analysis->>'policy' = ${p(m.repair.policy)}, false)`,
  ].filter((c): c is string => c !== null);
  return [
    `d.kind = 'spatial'`,
    ...(action.type === "approve" ? [`d.failure_class <> 'poison'`] : []),
    `d.analysis IS NOT NULL AND jsonb_typeof(d.analysis) = 'object'`,
    `d.analysis->>'outcome' IS DISTINCT FROM 'valid'`,
    ...(same.length > 0 ? [`NOT (${same.join(" AND ")})`] : []),
  ].join(" AND ");
}

/**
 * A dry run's columns for a rule judging another repair, on a record in its SQL scope (`needs` from a lateral
 * needsOtherRepairSql): what the stored analysis decides where it answers — `verdict` ('' when the action applies,
 * as verdictSql) and the area `change` (areaChange) — or, where the repair must run, the stored `method` and
 * `policy` the rule's own settings fall back to. The payload's geometry the caller adds for the latter.
 */
export function storedVerdictColumns(m: RuleMatch, action: RuleAction, p: (v: unknown) => string): string {
  return `CASE WHEN n.needs THEN NULL ELSE ${verdictSql(m, action, p)} END AS verdict,
    CASE WHEN n.needs THEN NULL ELSE ${CHANGE} END AS change,
    CASE WHEN n.needs THEN d.analysis->>'method' END AS method,
    CASE WHEN n.needs THEN d.analysis->>'policy' END AS policy`;
}

/** Of some records, how many a replay back to origin could not send, and why. */
export interface NotReplayableCount {
  noBrokerSource: number;
  refusedDestination: number;
}

/**
 * Counts, of the records `where` selects (its parameters in `values`; `d` is dead_letter), those a replay back to
 * origin could not send: the replay step's own check (lib/replay/sinks/origin/origin-destinations.ts
 * notReplayableToOrigin), handed in by whoever runs the job — this step sits before the replay on the path and does
 * not import it.
 */
export type OriginCheck = (db: pg.Pool | pg.PoolClient, where: string, values: readonly unknown[]) => Promise<NotReplayableCount>;

/** Adds a page's (or a range's) approvals that cannot go back to origin, when the job counts them. */
export function addOrigin(c: RuleCounts, more: NotReplayableCount): void {
  const o = c.notReplayableToOrigin;
  if (!o) return;
  o.noBrokerSource += more.noBrokerSource;
  o.refusedDestination += more.refusedDestination;
  o.total = o.noBrokerSource + o.refusedDestination;
}

/** areaBucket (match-rule.ts) of a decided approval's change: the smallest bound it stays within, "more" or "unknown". */
const BUCKET = `CASE WHEN (${CHANGE}) IS NULL THEN 'unknown' ${AREA_BUCKETS.map((b) => `WHEN abs(${CHANGE}) <= ${b} THEN '${b}'`).join(" ")}
  ELSE 'more' END`;

/**
 * Counts the rule's verdicts on the records with id in (from, to] within `scope` (the rule's SQL scope, whose
 * parameters `params` holds): one aggregate, plus the first samples in id order while `samples` still wants some.
 * Returns the records looked at.
 */
export async function countInSql(
  db: pg.Pool | pg.PoolClient,
  rule: { match: RuleMatch; action: RuleAction },
  range: { from: string; to: string },
  scope: { sql: string; params: unknown[] },
  counts: RuleCounts,
  samples: number,
  originCheck?: OriginCheck,
): Promise<number> {
  const params = [...scope.params];
  const p = (v: unknown) => `$${params.push(v)}`;
  const verdict = verdictSql(rule.match, rule.action, p);
  const bucketed = rule.action.type === "approve";
  const inRange = `d.id > ${p(range.from)} AND d.id <= ${p(range.to)} AND ${scope.sql}`;
  const { rows } = await db.query<{ verdict: string; bucket: string | null; n: number }>(
    `SELECT v.verdict, v.bucket, count(*)::int AS n FROM (
       SELECT ${verdict} AS verdict, ${bucketed ? `CASE WHEN d.kind = 'spatial' THEN ${BUCKET} END` : "NULL::text"} AS bucket
       FROM dead_letter d WHERE ${inRange}) v
     GROUP BY 1, 2`,
    params,
  );
  let seen = 0;
  let approvals = 0;
  for (const r of rows) {
    seen += r.n;
    if (r.verdict === "") {
      approvals += r.n;
      counts.decided += r.n;
      if (r.bucket !== null) counts.areaChanges[r.bucket] = (counts.areaChanges[r.bucket] ?? 0) + r.n;
    } else {
      counts.skipped += r.n;
      counts.skippedReasons[r.verdict] = (counts.skippedReasons[r.verdict] ?? 0) + r.n;
    }
  }
  // Of the range's approvals, those a standing replay back to origin could not send (two more passes over the
  // range, for such a rule's dry run alone).
  if (counts.notReplayableToOrigin && approvals > 0) {
    if (!originCheck) throw new Error("a dry run counting approvals back to origin needs the replay step's check (originCheck)");
    addOrigin(counts, await originCheck(db, `${inRange} AND (${verdict}) = ''`, params));
  }
  // The first samples of each kind in id order, while the job still wants some (a query each: LIMIT stops early).
  const first = async (decided: boolean, want: number) =>
    want <= 0 || !rows.some((r) => (r.verdict === "") === decided)
      ? []
      : (
          await db.query<{ id: string; verdict: string }>(
            `SELECT d.id::text AS id, ${verdict} AS verdict FROM dead_letter d WHERE ${inRange} AND (${verdict}) ${decided ? "=" : "<>"} ''
             ORDER BY d.id LIMIT ${want}`,
            params,
          )
        ).rows;
  for (const r of await first(true, samples - counts.samples.decided.length)) counts.samples.decided.push(r.id);
  for (const r of await first(false, samples - counts.samples.skipped.length)) counts.samples.skipped.push({ id: r.id, reason: r.verdict });
  return seen;
}
