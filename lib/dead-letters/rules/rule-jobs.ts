import "server-only";
import type pg from "pg";
import { AppError } from "../../errors/app-error";
import { appendAudit, type AuditInput } from "../../audit/append";
import { auditActor, type Actor } from "../../audit/actor";
import { inTransaction } from "../../db/transaction";
import { areaBucket, judgeRepair, matchRule, type RuleOutcome } from "../../rules/match-rule";
import {
  activeVersionOf,
  approversOf,
  assertMatchInScope,
  assertRuleVisible,
  needs,
  recordMatches,
  ruleInScope,
  type ActiveRule,
} from "../../rules/rules";
import { readRecordScope } from "../../auth/teams/read-scope";
import type { Role } from "../../auth/permissions";
import { scopeSql, UNSCOPED, type RecordScope } from "../../scope/record-scope";
import type { RuleAction, RuleCounts, RuleJobView, RuleMatch } from "../../rules/rule-schemas";
import type { RepairMethod, RepairPolicy } from "../../vocabulary/record";
import { otherRepairsOffThread } from "../ingest/analyze-off-thread";
import type { OtherRepairFacts } from "../store/arrival-facts";
import { idCeiling } from "../triage/bulk-action";
import { addOrigin, countInSql, judgeableInSql, needsOtherRepairSql, storedVerdictColumns, type OriginCheck } from "./judge-in-sql";
import { claimJob, holdJob, JobTakenOver, newRunner, releaseJob, ruleJobStalled } from "./rule-job-claim";
import {
  decisionAudit,
  decisionOf,
  otherRepairDecision,
  queueStandingReplays,
  factColumns,
  toRuleRecord,
  writeRuleDecisions,
  type FactRow,
  type RuleDecision,
  type RuleRecord,
} from "../store/rule-decisions";

// A rule's dry run and its apply: the same walk over the records stored when the job started (id ≤ ceiling, still
// pending, in the starter's teams and the rule's SQL-visible scope), page by page in id order, judged by the same
// matchRule — so an apply right after a dry run decides what the dry run counted. A dry run only counts; an apply
// writes each page's decisions, their audit events (the rule as actor) and the job's progress in one transaction, and
// stops when the rule is disabled or changed under it. A job carries its own match (a draft's, for a dry run): only
// a reader whose teams hold that match reads it (getRuleJob).
// A rule judging a repair other than the stored one runs GEOS on the ingest threads for each record it looks at, a
// page's records split over them (otherRepairsOffThread). Its dry run has PostgreSQL judge the records the stored
// analysis answers for (matchRule's verdicts written in SQL, judge-in-sql.ts), and only the others' geometry crosses;
// a dry run of a rule reading only what is stored is counted in SQL whole.

const PAGE = 1000;
const SAMPLES = 10;
/** Ids per aggregate of a dry run counted in SQL: a few seconds at most on a loaded machine, well within the heartbeat. */
const SQL_RANGE = 200_000n;

export interface RuleJobContext {
  actor: Actor;
  /** a dry run and an apply take replays:approve, whether asked over the API or the CLI (--as) */
  role: Role;
  /** the caller's teams: a rule outside them is no rule (404), the job's match must stay within them */
  scope: RecordScope;
  requestId: string | null;
  now: Date;
}

interface JobRow {
  id: string;
  rule_id: string;
  version: number | null;
  type: "dry_run" | "apply";
  status: RuleJobView["status"];
  match: RuleMatch;
  action: RuleAction;
  actor_id: string | null;
  ceiling: string;
  cursor: string;
  total: number;
  processed: number;
  decided: number;
  skipped: number;
  skipped_reasons: Record<string, number>;
  samples: RuleCounts["samples"];
  area_changes: Record<string, number>;
  not_replayable_to_origin: { noBrokerSource: number; refusedDestination: number } | null;
  error: string | null;
  request_id: string | null;
  created_at: Date;
  finished_at: Date | null;
  heartbeat_at: Date | null;
}

const COLUMNS = `id::text AS id, rule_id::text AS rule_id, version, type, status, match, action, actor_id, ceiling::text AS ceiling,
  cursor::text AS cursor, total, processed, decided, skipped, skipped_reasons, samples, area_changes, not_replayable_to_origin, error,
  request_id, created_at, finished_at, heartbeat_at`;

function toView(r: JobRow): RuleJobView {
  return {
    id: r.id,
    ruleId: r.rule_id,
    version: r.version,
    type: r.type,
    status: r.status,
    total: r.total,
    processed: r.processed,
    decided: r.decided,
    skipped: r.skipped,
    skippedReasons: r.skipped_reasons,
    samples: r.samples,
    areaChanges: r.area_changes,
    notReplayableToOrigin: originView(r.not_replayable_to_origin),
    error: r.error,
    createdAt: r.created_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
  };
}

const originView = (o: JobRow["not_replayable_to_origin"]): RuleCounts["notReplayableToOrigin"] =>
  o === null ? null : { total: o.noBrokerSource + o.refusedDestination, ...o };

/**
 * The records a job walks, as SQL: those the job's starter may see (their RecordScope, the seam every read of
 * records passes) and the SQL part of the rule's match (what indexes answer); matchRule judges the rest.
 */
function walkSql(scope: RecordScope, m: RuleMatch, params: unknown[]): string {
  const p = (v: unknown) => `$${params.push(v)}`;
  const clauses = ["d.status = 'pending'", scopeSql(scope, p)];
  if (m.kind) clauses.push(`d.kind = ${p(m.kind)}::"DeadLetterKind"`);
  if (m.repair) clauses.push(`d.kind = 'spatial'`);
  if (m.afcIssues) clauses.push(`d.kind = 'afc'`);
  if (m.source) clauses.push(`d.source = ${p(m.source)}`);
  if (m.origin) clauses.push(`d.origin_source = ${p(m.origin)}`);
  if (m.reason) clauses.push(`d.reason_group = ${p(m.reason)}`);
  if (m.class) clauses.push(`d.failure_class = ${p(m.class)}::"FailureClass"`);
  return clauses.join(" AND ");
}

async function readJob(db: pg.Pool | pg.PoolClient, ruleId: string, id: string): Promise<JobRow> {
  const { rows } = await db.query<JobRow>(`SELECT ${COLUMNS} FROM rule_job WHERE id = $1 AND rule_id = $2`, [id, ruleId]);
  if (!rows[0]) throw new AppError("not_found", `no job ${id} of rule ${ruleId}`);
  return rows[0];
}

/**
 * A job of a rule in the reader's teams, whose own match is too: a dry run of a draft carries its own match, which
 * may name another team's source or none (every team's); its counts and samples are then no job at all (404).
 */
export async function getRuleJob(pool: pg.Pool, ruleId: string, id: string, scope: RecordScope): Promise<RuleJobView> {
  return toView(await readVisibleJob(pool, ruleId, id, scope));
}

async function readVisibleJob(pool: pg.Pool, ruleId: string, id: string, scope: RecordScope): Promise<JobRow> {
  await assertRuleVisible(pool, ruleId, scope);
  const job = await readJob(pool, ruleId, id);
  if (!ruleInScope(scope, job.match)) throw new AppError("not_found", `no job ${id} of rule ${ruleId}`);
  return job;
}

/**
 * The job (as getRuleJob), and whether the caller should start a runner for it: its runner died or stopped
 * (ruleJobStalled). Polling resumes it as a bulk job's poll does, so a job finishes where no housekeeping runs.
 */
export async function pollRuleJob(
  pool: pg.Pool,
  ruleId: string,
  id: string,
  scope: RecordScope,
  now: Date,
): Promise<{ job: RuleJobView; resume: boolean }> {
  const job = await readVisibleJob(pool, ruleId, id, scope);
  return { job: toView(job), resume: ruleJobStalled({ status: job.status, heartbeatAt: job.heartbeat_at }, now) };
}

/**
 * Records a dry run (of the rule's latest version, or of the draft's match and action the editor sends) or an
 * apply (of the active version, which `version` must be). The caller runs it with runRuleJob.
 */
export async function createRuleJob(
  pool: pg.Pool,
  ruleId: string,
  spec:
    | {
        type: "dry_run";
        match: RuleMatch;
        action: RuleAction;
        version: number | null;
        /** the rule's standing replay (the version's, or the draft's) goes back to origin: count its approvals that cannot */
        toOrigin?: boolean;
      }
    | { type: "apply"; version: number },
  ctx: RuleJobContext,
): Promise<RuleJobView> {
  needs(ctx, "replays:approve", spec.type === "apply" ? "applying a rule" : "dry-running a rule");
  await assertRuleVisible(pool, ruleId, ctx.scope);
  let judged: { match: RuleMatch; action: RuleAction };
  let active: ActiveRule | null = null;
  if (spec.type === "apply") {
    const { rule, version } = await activeVersionOf(pool, ruleId);
    if (version.version !== spec.version) {
      throw new AppError(
        "conflict",
        `version: rule ${rule.name} applies version ${version.version}, not ${spec.version}: dry-run it again`,
        {
          issues: [{ path: "version", message: `is ${version.version} now` }],
        },
      );
    }
    if (version.action.type === "leave") throw new AppError("conflict", `rule ${rule.name} leaves records as they are: nothing to apply`);
    judged = version;
    active = {
      id: ruleId,
      name: rule.name,
      version: version.version,
      match: version.match,
      action: version.action,
      approvers: approversOf(version),
      replays: version.replay !== null,
    };
  } else judged = spec;
  // A dry run's draft match, or the active version an apply judges (older than the latest assertRuleVisible read).
  assertMatchInScope(ctx.scope, judged.match);
  const ceiling = await idCeiling(pool);
  const params: unknown[] = [ceiling];
  const { rows: counted } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM dead_letter d WHERE d.id <= $1 AND ${walkSql(ctx.scope, judged.match, params)}`,
    params,
  );
  const total = counted[0]?.n ?? 0;
  const insert = async (db: pg.Pool | pg.PoolClient) =>
    db.query<JobRow>(
      `INSERT INTO rule_job (rule_id, version, type, match, action, ceiling, total, actor_id, actor_email, actor_role, request_id, created_at,
         heartbeat_at, not_replayable_to_origin)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13) RETURNING ${COLUMNS}`,
      [
        ruleId,
        spec.version,
        spec.type,
        JSON.stringify(judged.match),
        JSON.stringify(judged.action),
        ceiling,
        total,
        ctx.actor.id,
        ctx.actor.email,
        ctx.actor.role,
        ctx.requestId,
        ctx.now,
        // Counted from zero by a dry run of approvals going back to origin; null (not counted) otherwise.
        spec.type === "dry_run" && spec.toOrigin === true && judged.action.type === "approve"
          ? JSON.stringify({ noBrokerSource: 0, refusedDestination: 0 })
          : null,
      ],
    );
  if (!active) {
    // The editor dry-runs as one types: finished dry runs are kept a day (their counts stay pollable), not for ever.
    await pool.query(`DELETE FROM rule_job WHERE type = 'dry_run' AND finished_at < $1::timestamptz - interval '1 day'`, [ctx.now]);
    return toView((await insert(pool)).rows[0]!);
  }
  const rule = active;
  return inTransaction(pool, async (client) => {
    const job = (await insert(client)).rows[0]!;
    await appendAudit(
      client,
      [
        {
          ...auditActor(ctx.actor, ctx.requestId),
          action: "rule.apply_started",
          targetType: "rule",
          targetId: ruleId,
          after: { job: job.id, name: rule.name, version: rule.version, approvers: rule.approvers, candidates: total },
        },
      ],
      ctx.now,
    );
    return toView(job);
  });
}

/** The audit trail's actor for a rule's own decisions: the rule, by id, name and version. */
export function ruleActor(rule: Pick<ActiveRule, "id" | "name" | "version">): Actor {
  return { id: `rule:${rule.id}`, email: `rule ${rule.name} v${rule.version}`, role: "rule" };
}

/** A page's verdicts: the outcome per record, and the decisions an apply writes. */
interface Judged {
  record: RuleRecord;
  outcome: RuleOutcome;
  decision: RuleDecision | null;
}

type PageRow = FactRow & { geometry_text?: string | null };

/** A page read: its rows (those still in the rule's scope), and the last id it covered — the job's cursor after it. */
interface ReadPage<R> {
  rows: R[];
  last: string;
}

/** A page query's select list and joins (on `dead_letter d`); `p` adds a parameter and returns its placeholder. */
type PageColumns = (p: (v: unknown) => string) => { select: string; join: string };

/**
 * Each record's facts, for matchRule (an apply: with the delivered geometry its pins need), and the geometry as
 * text for a rule judging another repair.
 */
const factPage =
  (opts: { delivered: boolean; geometry: boolean }): PageColumns =>
  () => ({ select: `${factColumns(opts)}${opts.geometry ? `, ${GEOMETRY_FOR_REPAIR} AS geometry_text` : ""}`, join: "" });

/** A dry run's page for a rule judging another repair: the stored analysis judged here, the geometry where it is not. */
const verdictPage =
  (rule: { match: RuleMatch; action: RuleAction }): PageColumns =>
  (p) => ({
    select: `d.id::text AS id, n.needs, ${storedVerdictColumns(rule.match, rule.action, p)},
      CASE WHEN n.needs THEN ${GEOMETRY_FOR_REPAIR} END AS geometry_text`,
    join: `CROSS JOIN LATERAL (SELECT ${needsOtherRepairSql(rule.match, rule.action, p)} AS needs) n`,
  });

/** A row of verdictPage. */
interface VerdictRow {
  id: string;
  needs: boolean;
  /** where the stored analysis answers: '' when the action applies, the skip reason otherwise */
  verdict: string | null;
  change: number | null;
  /** where the repair must run: the stored method and policy, for what the rule leaves unset */
  method: RepairMethod | null;
  policy: RepairPolicy | null;
  geometry_text: string | null;
}

/**
 * The walk's pages, read one after the other: the records after id `after` up to the ceiling in the walk's SQL
 * (walkSql: the starter's teams and the rule's SQL scope), in id order. Their ids come a range of ids at a time (RANGE), the next range read while this one's
 * pages are, and each page's rows then by id. Asking instead for the scope's next page (ORDER BY id LIMIT) had
 * PostgreSQL find and sort every match past the cursor for each page: a bitmap scan of the scope's indexes
 * and their rows, 1–2 s on 1M records on a loaded machine, longer than the page's GEOS. Each page is read with
 * the scope again, so a record that left it meanwhile (decided, edited) is not judged. A dry run reads no
 * delivered geometry (it pins nothing); the payload's geometry as text only for a rule that runs GEOS. Null: no ids left.
 */
function pageReader<R>(
  pool: pg.Pool,
  scope: RecordScope,
  match: RuleMatch,
  ceiling: string,
  columns: PageColumns,
): (after: string) => Promise<ReadPage<R> | null> {
  const top = BigInt(ceiling);
  /** The scope's ids in the ranges after `after`, up to the first range that holds any (or the ceiling). */
  const readWindow = async (after: string): Promise<{ ids: string[]; end: bigint }> => {
    let from = BigInt(after);
    for (;;) {
      const end = from + RANGE < top ? from + RANGE : top;
      if (from >= end) return { ids: [], end };
      const params: unknown[] = [String(from), String(end)];
      const { rows } = await pool.query<{ id: string }>(
        `SELECT d.id::text AS id FROM dead_letter d WHERE d.id > $1 AND d.id <= $2 AND ${walkSql(scope, match, params)} ORDER BY d.id`,
        params,
      );
      if (rows.length > 0 || end === top) return { ids: rows.map((r) => r.id), end };
      from = end;
    }
  };
  let window: string[] = [];
  let upcoming: Promise<{ ids: string[]; end: bigint }> | null = null;
  let exhausted = false;
  return async (after) => {
    if (window.length === 0 && !exhausted) {
      const read = await (upcoming ?? readWindow(after));
      window = read.ids;
      exhausted = read.end >= top;
      upcoming = exhausted ? null : readWindow(String(read.end));
      // Awaited when this window runs out; a walk that ends before must not leave an unhandled rejection.
      upcoming?.catch(() => {});
    }
    const ids = window.splice(0, PAGE);
    if (ids.length === 0) return null;
    const params: unknown[] = [ids];
    const { select, join } = columns((v) => `$${params.push(v)}`);
    const { rows } = await pool.query<R & pg.QueryResultRow>(
      `SELECT ${select} FROM dead_letter d ${join}
       WHERE d.id = ANY($1::bigint[]) AND ${walkSql(scope, match, params)} ORDER BY d.id`,
      params,
    );
    return { rows, last: ids[ids.length - 1]! };
  };
}

/**
 * What a repair reads of the payload, as text: a Feature's geometry ("null" when it has none, as JSON.parse reads
 * it); SQL NULL when the payload is not a Feature (isFeaturePayload: an object whose type is the string "Feature").
 * The geometry alone: the rest of the payload (its properties were half of it) was text PostgreSQL wrote and the
 * threads parsed for nothing.
 */
const GEOMETRY_FOR_REPAIR = `CASE WHEN jsonb_typeof(d.payload) = 'object' AND d.payload->'type' = '"Feature"'::jsonb
  THEN COALESCE((d.payload->'geometry')::text, 'null') END`;

/**
 * Ids per query of the walk's scope: PostgreSQL reads that range in id order (a few thousand table pages), and
 * a window holds at most this many ids (a few MB).
 */
const RANGE = 50_000n;

/** A page as the walk hands it over: its verdicts, its last id and how many records it held. */
interface WalkedPage<J> {
  page: J[];
  last: string;
  count: number;
}

/**
 * The pages after `from`, each read and judged ahead of the one being saved (AHEAD pages more in flight): the
 * read of a page starts as soon as the previous one's is done, and its judging (GEOS, queued on the ingest
 * threads behind the previous page's) as soon as it is read. `next` gives them in id order, null after the last.
 * A walk left early (an apply stopped, a runner taken over) lets its pages in flight finish unawaited.
 */
function pageWalk<R, J>(
  read: (after: string) => Promise<ReadPage<R> | null>,
  from: string,
  judge: (rows: R[]) => Promise<J[]>,
): { next: () => Promise<WalkedPage<J> | null> } {
  let reading: Promise<ReadPage<R> | null> | null = null;
  const inFlight: Promise<WalkedPage<J> | null>[] = [];
  const launch = () => {
    const previous = reading;
    const page = previous === null ? read(from) : previous.then((p) => (p === null ? null : read(p.last)));
    reading = page;
    const walked = page.then(async (p) => (p === null ? null : { page: await judge(p.rows), last: p.last, count: p.rows.length }));
    // Awaited by next() in turn; one left behind by a walk that ended early must not be an unhandled rejection.
    walked.catch(() => {});
    inFlight.push(walked);
  };
  for (let i = 0; i <= AHEAD; i++) launch();
  return {
    next: async () => {
      const head = inFlight.shift();
      const page = head ? await head : null;
      if (page) launch();
      return page;
    },
  };
}

/** Pages read and judged ahead of the one being saved: enough that the threads never wait for a read. */
const AHEAD = 1;

/**
 * Judges a page. A rule judging a repair other than the stored one has it run on the ingest threads (GEOS), the
 * page's geometries sent as the text PostgreSQL gives, queued in chunks for the threads. `pin`: an apply, whose
 * decisions need the digest of what the repair delivers (a dry run's do not).
 */
async function judgePage(rule: ActiveRule, rows: PageRow[], pin: boolean): Promise<Judged[]> {
  const records = rows.map(toRuleRecord);
  const outcomes = records.map((r) => matchRule(rule, r));
  const others = await otherRepairsOf(
    rows,
    (_, i) => {
      const o = outcomes[i]!;
      return o.kind === "needs_analysis" ? { method: o.method, policy: o.policy } : null;
    },
    pin,
  );
  return records.map((record, i) => {
    const outcome = outcomes[i]!;
    if (outcome.kind !== "needs_analysis") return { record, outcome, decision: pin ? decisionOf(rule, record, outcome) : null };
    const other = others.get(i) ?? null;
    if (!other) return { record, outcome: { kind: "skip", reason: NOT_A_FEATURE }, decision: null };
    const again = matchRule(rule, record, other.analysis);
    return { record, outcome: again, decision: pin ? otherRepairDecision(rule, record, again, other) : null };
  });
}

const NOT_A_FEATURE = "payload is not a GeoJSON Feature";

/**
 * The other repair of the page's rows that need one (`wanted`: the repair, null for none), by row index: run on the
 * ingest threads, one group per method and policy, every group queued at once (the threads take them in turn).
 */
async function otherRepairsOf<R extends { geometry_text?: string | null }>(
  rows: R[],
  wanted: (row: R, i: number) => { method: RepairMethod; policy: RepairPolicy } | null,
  digest: boolean,
): Promise<Map<number, OtherRepairFacts | null>> {
  const groups = new Map<string, { repair: { method: RepairMethod; policy: RepairPolicy }; at: number[] }>();
  rows.forEach((row, i) => {
    const repair = wanted(row, i);
    if (!repair) return;
    const key = `${repair.method}/${repair.policy}`;
    const group = groups.get(key) ?? { repair, at: [] };
    group.at.push(i);
    groups.set(key, group);
  });
  const done = await Promise.all(
    [...groups.values()].map(({ repair, at }) =>
      otherRepairsOffThread(
        at.map((i) => rows[i]!.geometry_text ?? null),
        repair,
        { digest },
      ),
    ),
  );
  const others = new Map<number, OtherRepairFacts | null>();
  [...groups.values()].forEach(({ at }, g) => at.forEach((i, k) => others.set(i, done[g]![k] ?? null)));
  return others;
}

/**
 * Judges a dry run's page of verdictPage rows: the stored analysis's verdicts as PostgreSQL gave them, and for the
 * records it does not answer for, the other repair run on the ingest threads (GEOS) and judged by judgeRepair —
 * matchRule's verdicts, without each record's facts crossing to this thread (rule-walk.test.ts holds the two alike).
 */
async function judgeVerdicts(rule: { match: RuleMatch }, rows: VerdictRow[]): Promise<Verdict[]> {
  const settings = rule.match.repair ?? {};
  const repairOf = (r: VerdictRow) => ({ method: settings.method ?? r.method!, policy: settings.policy ?? r.policy! });
  const others = await otherRepairsOf(rows, (r) => (r.needs ? repairOf(r) : null), false);
  return rows.map((r, i): Verdict => {
    const record = { id: r.id, kind: "spatial" as const };
    if (!r.needs) {
      if (r.verdict === null) throw new Error(`record ${r.id}: no verdict from the stored analysis`);
      return {
        record,
        outcome: r.verdict === "" ? { kind: "decide", areaChange: r.change, repair: null } : { kind: "skip", reason: r.verdict },
      };
    }
    const other = others.get(i) ?? null;
    if (!other) return { record, outcome: { kind: "skip", reason: NOT_A_FEATURE } };
    return { record, outcome: judgeRepair(rule.match, other.analysis, repairOf(r)) };
  });
}

/** What a dry run counts of a judged record. */
interface Verdict {
  record: Pick<RuleRecord, "id" | "kind">;
  outcome: RuleOutcome;
}

function addCounts(c: RuleCounts, page: Verdict[], action: RuleAction): void {
  for (const { record, outcome } of page) {
    if (outcome.kind === "skip") {
      c.skipped++;
      c.skippedReasons[outcome.reason] = (c.skippedReasons[outcome.reason] ?? 0) + 1;
      if (c.samples.skipped.length < SAMPLES) c.samples.skipped.push({ id: record.id, reason: outcome.reason });
    } else if (outcome.kind === "decide") {
      c.decided++;
      if (c.samples.decided.length < SAMPLES) c.samples.decided.push(record.id);
      if (action.type === "approve" && record.kind === "spatial") {
        const bucket = areaBucket(outcome.areaChange);
        c.areaChanges[bucket] = (c.areaChanges[bucket] ?? 0) + 1;
      }
    }
  }
}

/** Still the active version the apply started with (read under a share lock: a kill switch waits for this page). */
async function stillActive(client: pg.PoolClient, ruleId: string, version: number): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>(
    `SELECT status = 'active' AND active_version = $2 AS ok FROM rule WHERE id = $1 FOR SHARE`,
    [ruleId, version],
  );
  return rows[0]?.ok === true;
}

/**
 * Works through a job to its end (or the rule's disabling, for an apply); failures are recorded on the job. This
 * call is one runner (rule-job-claim.ts): each page's progress commits with a heartbeat under its name and the job
 * row's lock (an apply's decisions in the same transaction), so a runner that dies leaves the job at its last page
 * for another to resume, and a runner that was taken over (it stalled between pages) finds out at its next page,
 * which rolls back: nothing is decided or counted twice. Aborting `signal` stops it between pages, the job released
 * for another runner to resume at once.
 */
export async function runRuleJob(
  pool: pg.Pool,
  ruleId: string,
  jobId: string,
  opts: {
    /** the clock, read for each page and each heartbeat */
    now: () => Date;
    /** identifies this runner in locked_by; a fresh one per run by default */
    runner?: string;
    signal?: AbortSignal;
    /** the replay step's check, for a dry run counting approvals back to origin (it fails without) */
    originCheck?: OriginCheck;
    /** called after each committed page (tests use it to stop or take over a runner part-way) */
    onPage?: (job: RuleJobView) => void | Promise<void>;
  },
): Promise<RuleJobView> {
  const runner = opts.runner ?? newRunner();
  if (opts.signal?.aborted || !(await claimJob(pool, jobId, runner, opts.now()))) return toView(await readJob(pool, ruleId, jobId));
  const job = await readJob(pool, ruleId, jobId);
  if (job.status !== "running") return toView(job);
  const stop = async (): Promise<RuleJobView> => {
    await releaseJob(pool, jobId, runner);
    return toView(await readJob(pool, ruleId, jobId));
  };
  const saved = async (row: JobRow) => opts.onPage?.(toView(row));
  const end = (status: "completed" | "failed", error: string | null) => finish(pool, ruleId, jobId, runner, status, opts.now(), error);
  // The starter's teams as they are now (as a bulk job's): one removed from a team stops reading its records mid-job.
  const scope = job.actor_id === null ? UNSCOPED : await readRecordScope(pool, job.actor_id);
  const rule: ActiveRule = { id: ruleId, name: "", version: job.version ?? 0, match: job.match, action: job.action, approvers: [] };
  if (job.type === "apply") {
    const { rule: row, version } = await activeVersionOf(pool, ruleId).catch(() => ({ rule: null, version: null }));
    Object.assign(rule, { name: row?.name ?? "", approvers: version ? approversOf(version) : [], replays: version?.replay != null });
  }
  const counts: RuleCounts = {
    decided: job.decided,
    skipped: job.skipped,
    skippedReasons: job.skipped_reasons,
    samples: job.samples,
    areaChanges: job.area_changes,
    notReplayableToOrigin: originView(job.not_replayable_to_origin),
  };
  let cursor = job.cursor;
  let processed = job.processed;
  const needsPayload = rule.match.repair?.method !== undefined || rule.match.repair?.policy !== undefined;
  const progress = { jobId, runner, now: opts.now, originCheck: opts.originCheck };
  try {
    if (job.type === "dry_run" && judgeableInSql(rule.match)) {
      // Counted by PostgreSQL a range of ids at a time (judge-in-sql.ts), each range counted and saved as a page.
      while (BigInt(cursor) < BigInt(job.ceiling)) {
        if (opts.signal?.aborted) return await stop();
        const to = String(BigInt(cursor) + SQL_RANGE < BigInt(job.ceiling) ? BigInt(cursor) + SQL_RANGE : BigInt(job.ceiling));
        const from = cursor;
        const row = await inTransaction(pool, async (client) => {
          await holdJob(client, jobId, runner);
          const params: unknown[] = [];
          const sql = walkSql(scope, rule.match, params);
          processed += await countInSql(client, rule, { from, to }, { sql, params }, counts, SAMPLES, opts.originCheck);
          return saveProgress(client, jobId, runner, opts.now(), to, processed, counts);
        });
        cursor = to;
        await saved(row);
      }
      return await end("completed", null);
    }
    if (job.type === "dry_run" && needsPayload && rule.match.afcIssues === undefined) {
      // A rule judging another repair: PostgreSQL judges what the stored analysis answers for, the threads the rest.
      const pages = pageWalk(pageReader<VerdictRow>(pool, scope, rule.match, job.ceiling, verdictPage(rule)), cursor, (rows) =>
        judgeVerdicts(rule, rows),
      );
      for (let next = await pages.next(); next !== null; next = await pages.next()) {
        if (opts.signal?.aborted) return await stop();
        await saved(await saveDryRunPage(pool, progress, next, processed, counts, rule.action));
        cursor = next.last;
        processed += next.count;
      }
      return await end("completed", null);
    }
    // Pages in a pipeline: the next page is read, and its GEOS work queued on the threads, while this one is
    // judged and saved, so neither the threads nor PostgreSQL wait on the other; pages still commit in id order.
    const columns = factPage({ delivered: job.type === "apply", geometry: needsPayload });
    const pages = pageWalk(pageReader<PageRow>(pool, scope, rule.match, job.ceiling, columns), cursor, (rows) =>
      judgePage(rule, rows, job.type === "apply"),
    );
    for (;;) {
      const next = await pages.next();
      if (next === null) break;
      if (opts.signal?.aborted) return await stop();
      const { page, last, count } = next;
      if (job.type === "apply") {
        const now = opts.now();
        const row = await inTransaction(pool, async (client) => {
          // First: a claim waits for this page, and a runner taken over meanwhile writes nothing.
          await holdJob(client, jobId, runner);
          if (!(await stillActive(client, ruleId, rule.version))) return null;
          const decisions = page.flatMap((j) => (j.decision ? [j.decision] : []));
          const written = await writeRuleDecisions(client, decisions, now);
          await queueStandingReplays(client, decisions, written, now);
          // A record decided meanwhile (by an analyst, or a rule at its arrival) is not the apply's: skipped.
          const applied = page.map((j) =>
            j.outcome.kind === "decide" && !written.has(j.record.id) ? { ...j, outcome: { kind: "skip" as const, reason: CHANGED } } : j,
          );
          const pageCounts = emptyCounts();
          addCounts(pageCounts, applied, rule.action);
          merge(counts, pageCounts);
          await appendAudit(
            client,
            decisions.filter((d) => written.has(d.id)).map((d) => recordAudit(d, jobId, job.request_id)),
            now,
          );
          await recordMatches(
            client,
            [{ ruleId, version: rule.version, matched: pageCounts.decided + pageCounts.skipped, decided: pageCounts.decided }],
            now,
          );
          // The heartbeat as the page commits: a claim that waited for it sees a live runner.
          return saveProgress(client, jobId, runner, opts.now(), last, processed + count, counts);
        });
        if (!row) return await end("failed", "the rule was disabled or changed: the apply stopped");
        await saved(row);
      } else {
        await saved(await saveDryRunPage(pool, progress, next, processed, counts, rule.action));
      }
      cursor = last;
      processed += count;
    }
    return await end("completed", null);
  } catch (err) {
    if (err instanceof JobTakenOver) return toView(await readJob(pool, ruleId, jobId));
    console.error(`[rules] job ${jobId} of rule ${ruleId} failed`, err);
    return end("failed", err instanceof AppError ? err.message : "internal error (see the server log)");
  }
}

/** A dry run's page counted (and its approvals that could not go back to origin, when counted), and saved. */
async function saveDryRunPage(
  pool: pg.Pool,
  job: { jobId: string; runner: string; now: () => Date; originCheck: OriginCheck | undefined },
  { page, last, count }: WalkedPage<Verdict>,
  processed: number,
  counts: RuleCounts,
  action: RuleAction,
): Promise<JobRow> {
  return inTransaction(pool, async (client) => {
    await holdJob(client, job.jobId, job.runner);
    addCounts(counts, page, action);
    if (counts.notReplayableToOrigin) {
      const decided = page.flatMap((j) => (j.outcome.kind === "decide" ? [j.record.id] : []));
      if (decided.length > 0) {
        if (!job.originCheck) throw new Error("a dry run counting approvals back to origin needs the replay step's check (originCheck)");
        addOrigin(counts, await job.originCheck(client, "d.id = ANY($1::bigint[])", [decided]));
      }
    }
    return saveProgress(client, job.jobId, job.runner, job.now(), last, processed + count, counts);
  });
}

/** Why an apply skips a record its walk judged decidable: someone decided it between the read and the write. */
export const CHANGED = "changed meanwhile: decided or edited before the rule got to it";

const emptyCounts = (): RuleCounts => ({
  decided: 0,
  skipped: 0,
  skippedReasons: {},
  samples: { decided: [], skipped: [] },
  areaChanges: {},
  notReplayableToOrigin: null,
});

function merge(into: RuleCounts, page: RuleCounts): void {
  into.decided += page.decided;
  into.skipped += page.skipped;
  for (const [k, n] of Object.entries(page.skippedReasons)) into.skippedReasons[k] = (into.skippedReasons[k] ?? 0) + n;
  for (const [k, n] of Object.entries(page.areaChanges)) into.areaChanges[k] = (into.areaChanges[k] ?? 0) + n;
  into.samples.decided.push(...page.samples.decided.slice(0, SAMPLES - into.samples.decided.length));
  into.samples.skipped.push(...page.samples.skipped.slice(0, SAMPLES - into.samples.skipped.length));
}

function recordAudit(d: RuleDecision, jobId: string, requestId: string | null): AuditInput {
  const entry = decisionAudit(d);
  return {
    ...auditActor(ruleActor(d.rule), requestId),
    action: d.action === "approve" ? "dead_letter.approved" : "dead_letter.quarantined",
    targetType: "dead_letter",
    targetId: d.id,
    reason: entry.reason ?? null,
    before: { status: "pending", version: d.recordVersion },
    after: { ...entry, version: d.recordVersion + 1, job: jobId },
  };
}

/** A page's progress and heartbeat, when the job is still `runner`'s (else JobTakenOver: the page rolls back). */
async function saveProgress(
  client: pg.PoolClient,
  id: string,
  runner: string,
  now: Date,
  cursor: string,
  processed: number,
  c: RuleCounts,
): Promise<JobRow> {
  const { rows } = await client.query<JobRow>(
    `UPDATE rule_job SET cursor = $2, processed = $3, decided = $4, skipped = $5, skipped_reasons = $6, samples = $7, area_changes = $8,
       heartbeat_at = $10, not_replayable_to_origin = $11
     WHERE id = $1 AND locked_by = $9 AND status = 'running' RETURNING ${COLUMNS}`,
    [
      id,
      cursor,
      processed,
      c.decided,
      c.skipped,
      JSON.stringify(c.skippedReasons),
      JSON.stringify(c.samples),
      JSON.stringify(c.areaChanges),
      runner,
      now,
      c.notReplayableToOrigin
        ? JSON.stringify({
            noBrokerSource: c.notReplayableToOrigin.noBrokerSource,
            refusedDestination: c.notReplayableToOrigin.refusedDestination,
          })
        : null,
    ],
  );
  if (!rows[0]) throw new JobTakenOver(`rule job ${id} is another runner's now`);
  return rows[0];
}

/** Ends the job, when it is still `runner`'s: a runner taken over leaves it to the one that took it. */
async function finish(
  pool: pg.Pool,
  ruleId: string,
  id: string,
  runner: string,
  status: "completed" | "failed",
  now: Date,
  error: string | null,
): Promise<RuleJobView> {
  await pool.query(
    `UPDATE rule_job SET status = $2, finished_at = $3, error = $4 WHERE id = $1 AND locked_by = $5 AND status = 'running'`,
    [id, status, now, error, runner],
  );
  return toView(await readJob(pool, ruleId, id));
}
