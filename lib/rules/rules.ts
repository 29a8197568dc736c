import "server-only";
import type pg from "pg";
import { AppError } from "../errors/app-error";
import { appendAudit } from "../audit/append";
import { auditActor, type Actor } from "../audit/actor";
import { assertFourEyes } from "../auth/four-eyes";
import { can, type Role } from "../auth/permissions";
import { inTransaction } from "../db/transaction";
import { isUniqueViolation } from "../db/pg-errors";
import {
  RuleActionSchema,
  RuleMatchSchema,
  type CreateRuleBody,
  type PatchRuleBody,
  type RuleAction,
  type RuleMatch,
  type RuleReplay,
  type RuleReplayStats,
  type RuleReplayView,
  type RuleStatus,
  type RuleVersionView,
  type RuleView,
  type StandingReplayView,
} from "./rule-schemas";
import { inScope, type RecordScope } from "../scope/record-scope";

// Triage rules under four eyes: a supervisor drafts a version, another approves exactly that version, and only
// then does it decide records. Versions are immutable (a trigger refuses changes): a change of match, action or
// replay is a new version, and the rule decides nothing until that one is approved. The kill switch takes the
// rule out at once; enabling it again is a new version (the same content) needing a second supervisor again.
// Every change is audited in the transaction that makes it. A version's `replay` is a standing replay: approving
// the version opens its batch, approved by that same approval. What that takes of the replay step (the sink's
// checks, the batch) comes through ctx.standing (StandingReplayPort, lib/replay/batch/standing-rules.ts): the data
// path runs from here to the replay, not back.

/** The standing replay as a rule version stores it (rule_version.replay): its sink sealed as a batch's is. */
export interface StoredReplay {
  sink: { type: string } & Record<string, unknown>;
  ratePerSecond: number;
  canary?: { count: number; maxFailureRate: number };
}

/** What opens a version's standing batch: the version and who stands behind it. */
export interface StandingSpec {
  rule: { id: string; name: string; version: number };
  replay: StoredReplay;
  draftedById: string | null;
  approvedById: string | null;
  /** who drafted and who approved the version, as decisions name them */
  approvers: string[];
}

/** Each rule's standing flow and the outcomes of its standing batches. */
export interface StandingFlows {
  standing: Map<string, StandingReplayView>;
  outcomes: Map<string, Omit<RuleReplayStats, "failedAfterReplay">>;
}

/** What a rule's standing replay needs of the replay step (lib/replay/batch/standing-rules.ts implements it). */
export interface StandingReplayPort {
  /** The drafted replay's sink parsed, checked (outbound rule, the sink's own checks) and sealed; 422 on replay.sink.*. */
  prepare(replay: RuleReplay, match: RuleMatch): Promise<StoredReplay>;
  view(stored: StoredReplay): RuleReplayView;
  /** In the approving transaction: the version's batch, approved by that approval and running. */
  open(client: pg.PoolClient, spec: StandingSpec, ctx: RuleContext): Promise<string>;
  /** In the kill switch's transaction: the rule's running standing batches pause. */
  pause(client: pg.PoolClient, rule: { id: string; name: string }, reason: string, ctx: RuleContext): Promise<void>;
  /** The rule's paused standing batch runs again; 409 when there is none. Returns its id. */
  resume(client: pg.PoolClient, rule: { id: string; name: string }, ctx: RuleContext): Promise<string>;
  flows(db: pg.Pool | pg.PoolClient, ruleIds: string[]): Promise<StandingFlows>;
}

/** What a reader needs of the port: a version's replay as shown, and the rules' flows. */
export type StandingReader = Pick<StandingReplayPort, "view" | "flows">;

export interface RuleContext {
  /** the replay step's part of standing replays */
  standing: StandingReplayPort;
  actor: Actor;
  role: Role;
  /** the teams' records the caller may see: a rule is in the teams its match names (ruleInScope) */
  scope: RecordScope;
  requestId: string | null;
  now: Date;
}

interface RuleRow {
  id: string;
  name: string;
  status: RuleStatus;
  latest_version: number;
  active_version: number | null;
  created_at: Date;
  updated_at: Date;
}

interface VersionRow {
  version: number;
  match: unknown;
  action: unknown;
  replay: unknown;
  drafted_by_id: string | null;
  drafted_by_email: string | null;
  drafted_at: Date;
  approved_by_id: string | null;
  approved_by_email: string | null;
  approved_at: Date | null;
}

const RULE_COLUMNS = `id::text AS id, name, status, latest_version, active_version, created_at, updated_at`;
const VERSION_COLUMNS = `version, match, action, replay, drafted_by_id, drafted_by_email, drafted_at, approved_by_id,
  approved_by_email, approved_at`;

const notFound = (id: string) => new AppError("not_found", `no rule ${id}`);

/** 403 unless the caller's role holds `permission`: checked here, where the API's routes and the CLI's --as both pass. */
export function needs(ctx: Pick<RuleContext, "role">, permission: "replays:approve" | "rules:disable", what: string): void {
  if (!can(ctx.role, permission)) {
    throw new AppError("forbidden", `role ${ctx.role} lacks permission ${permission} (${what})`, { details: { permission } });
  }
}

const invalid = (path: string, message: string) =>
  new AppError("validation_failed", `${path}: ${message}`, { issues: [{ path, message }] });

/** Only an approving rule replays what it decides; then the port checks and seals the sink (outside any transaction). */
async function storedReplay(replay: RuleReplay, action: RuleAction, match: RuleMatch, ctx: RuleContext): Promise<StoredReplay> {
  if (action.type !== "approve") throw invalid("replay", "only a rule that approves records replays them (action.type approve)");
  return ctx.standing.prepare(replay, match);
}

/** A stored replay for a reader without the replay step (the sink's type only, nothing sealed). */
function plainReplayView(stored: StoredReplay): RuleReplayView {
  return {
    sink: { type: stored.sink.type },
    sinkText: stored.sink.type,
    ratePerSecond: stored.ratePerSecond,
    ...(stored.canary ? { canary: stored.canary } : {}),
  };
}

const replayOf = (v: { replay: unknown }): StoredReplay | null => (v.replay ?? null) as StoredReplay | null;

function toVersion(v: VersionRow, view: (stored: StoredReplay) => RuleReplayView = plainReplayView): RuleVersionView {
  const replay = replayOf(v);
  return {
    version: v.version,
    match: RuleMatchSchema.parse(v.match),
    action: RuleActionSchema.parse(v.action),
    replay: replay === null ? null : view(replay),
    draftedBy: { id: v.drafted_by_id, email: v.drafted_by_email },
    draftedAt: v.drafted_at.toISOString(),
    approvedBy: v.approved_at ? { id: v.approved_by_id, email: v.approved_by_email } : null,
    approvedAt: v.approved_at?.toISOString() ?? null,
  };
}

/** Who stands behind a version: its drafter and its approver ("approved by A and B"). */
export function approversOf(v: Pick<RuleVersionView, "draftedBy" | "approvedBy">): string[] {
  const named = (p: { id: string | null; email: string | null } | null) => (p ? (p.email ?? p.id ?? "unknown") : null);
  return [named(v.draftedBy), named(v.approvedBy)].filter((n): n is string => n !== null);
}

type Db = pg.Pool | pg.PoolClient;

async function readRule(db: Db, id: string, lock = false): Promise<RuleRow> {
  const { rows } = await db.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM rule WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id]);
  if (!rows[0]) throw notFound(id);
  return rows[0];
}

async function readVersions(db: Db, id: string): Promise<VersionRow[]> {
  const { rows } = await db.query<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM rule_version WHERE rule_id = $1 ORDER BY version DESC`, [id]);
  return rows;
}

const startOfDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

interface RuleStats {
  today: number;
  week: number;
  last: Date | null;
  refailedWeek: number;
}

/** Each rule's decisions today and in the last 7 days (UTC days), and its last match (rule_match_stat). */
async function decisionStats(db: Db, ids: string[], now: Date): Promise<Map<string, RuleStats>> {
  if (ids.length === 0) return new Map();
  const today = startOfDay(now);
  const week = new Date(today.getTime() - 6 * 86_400_000);
  const { rows } = await db.query<{ id: string; today: number; week: number; last: Date | null; refailed: number }>(
    `SELECT rule_id::text AS id, coalesce(sum(decided) FILTER (WHERE at >= $2), 0)::int AS today,
       coalesce(sum(decided) FILTER (WHERE at >= $3), 0)::int AS week, max(at) FILTER (WHERE matched > 0) AS last,
       coalesce(sum(failed_after_replay) FILTER (WHERE at >= $3), 0)::int AS refailed
     FROM rule_match_stat WHERE rule_id = ANY($1::bigint[]) GROUP BY rule_id`,
    [ids, today, week],
  );
  return new Map(rows.map((r) => [r.id, { today: r.today, week: r.week, last: r.last, refailedWeek: r.refailed }]));
}

const NO_OUTCOMES = {
  joined: 0,
  queued: 0,
  waiting: 0,
  sending: 0,
  retrying: 0,
  sent: 0,
  applied: 0,
  duplicate: 0,
  failed: 0,
  dropped: 0,
  cancelled: 0,
  notReplayable: 0,
};

function toView(
  r: RuleRow,
  latest: VersionRow,
  stats: RuleStats | undefined,
  flow: StandingFlows,
  reader: StandingReader,
  versions?: VersionRow[],
): RuleView {
  const v = toVersion(latest, reader.view);
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    version: r.latest_version,
    activeVersion: r.active_version,
    match: v.match,
    action: v.action,
    replay: v.replay,
    draftedBy: v.draftedBy,
    approvedBy: v.approvedBy,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    stats: {
      decidedToday: stats?.today ?? 0,
      decidedThisWeek: stats?.week ?? 0,
      lastMatchAt: stats?.last?.toISOString() ?? null,
      replay: { ...(flow.outcomes.get(r.id) ?? NO_OUTCOMES), failedAfterReplay: stats?.refailedWeek ?? 0 },
    },
    standing: flow.standing.get(r.id) ?? null,
    ...(versions ? { versions: versions.map((x) => toVersion(x, reader.view)) } : {}),
  };
}

/**
 * Whether a rule is in the caller's teams: every record it can decide must be theirs, so its match names a source
 * (or a broker source) the teams hold. A rule naming neither spans every team: an unscoped user's (an admin's).
 */
export function ruleInScope(scope: RecordScope, match: Pick<RuleMatch, "source" | "origin">): boolean {
  if (scope.all) return true;
  if (match.source === undefined && match.origin === undefined) return false;
  return inScope(scope, { source: match.source ?? "", originSource: match.origin ?? null });
}

/** 422 when a match the caller drafts or dry-runs reaches beyond their teams. */
export function assertMatchInScope(scope: RecordScope, match: Pick<RuleMatch, "source" | "origin">): void {
  if (ruleInScope(scope, match)) return;
  throw new AppError("validation_failed", "the match must name a source (or broker source) of your teams", {
    issues: [{ path: "match.source", message: "is not a source of your teams" }],
  });
}

/**
 * Whether a rule is in the caller's teams: every version's match is (ruleInScope). A rule shows its versions, and
 * its counts and standing flow cover what each decided, so a rule once drafted on another team's source stays
 * that team's too, as a batch holding another team's record is (batchInScopeSql).
 */
function everyVersionInScope(scope: RecordScope, matches: readonly unknown[]): boolean {
  return scope.all || (matches.length > 0 && matches.every((m) => ruleInScope(scope, RuleMatchSchema.parse(m))));
}

/** A rule outside the caller's teams is answered as no rule at all (404), never 403. */
async function readRuleInScope(db: Db, id: string, scope: RecordScope, lock = false): Promise<RuleRow> {
  const rule = await readRule(db, id, lock);
  if (scope.all) return rule;
  if (
    !everyVersionInScope(
      scope,
      (await readVersions(db, id)).map((v) => v.match),
    )
  )
    throw notFound(id);
  return rule;
}

/** Each rule's versions' matches, by rule id. */
async function versionMatches(db: Db): Promise<Map<string, unknown[]>> {
  const { rows } = await db.query<{ id: string; matches: unknown[] }>(
    `SELECT rule_id::text AS id, array_agg(match ORDER BY version) AS matches FROM rule_version GROUP BY rule_id`,
  );
  return new Map(rows.map((r) => [r.id, r.matches]));
}

/**
 * The ids of the rules in the caller's teams (everyVersionInScope): whose alerts (alert_event.triage_rule_id) the
 * caller sees although the alert rule is company-wide.
 */
export async function ruleIdsInScope(db: Db, scope: RecordScope): Promise<string[]> {
  const matches = await versionMatches(db);
  return [...matches].filter(([, m]) => everyVersionInScope(scope, m)).map(([id]) => id);
}

/** Every rule with its latest version, by name: those in the caller's teams. */
export async function listRules(db: Db, now: Date, scope: RecordScope, reader: StandingReader): Promise<RuleView[]> {
  const { rows } = await db.query<RuleRow & { v: VersionRow }>(
    `SELECT r.id::text AS id, r.name, r.status, r.latest_version, r.active_version, r.created_at, r.updated_at, to_jsonb(v) AS v
     FROM rule r JOIN rule_version v ON v.rule_id = r.id AND v.version = r.latest_version
     ORDER BY r.name`,
  );
  const matches = scope.all ? null : await versionMatches(db);
  const shown = matches ? rows.filter((r) => everyVersionInScope(scope, matches.get(r.id) ?? [])) : rows;
  const ids = shown.map((r) => r.id);
  const [stats, flow] = await Promise.all([decisionStats(db, ids, now), reader.flows(db, ids)]);
  return shown.map((r) => toView(r, versionFromJson(r.v), stats.get(r.id), flow, reader));
}

/** to_jsonb(rule_version) gives timestamps as text. */
function versionFromJson(v: VersionRow): VersionRow {
  const date = (x: unknown) => (x === null ? null : new Date(x as string));
  return { ...v, drafted_at: date(v.drafted_at) as Date, approved_at: date(v.approved_at) };
}

/** One rule with every version, newest first. */
export async function getRule(db: Db, id: string, now: Date, scope: RecordScope, reader: StandingReader): Promise<RuleView> {
  const rule = await readRuleInScope(db, id, scope);
  const versions = await readVersions(db, id);
  const [stats, flow] = await Promise.all([decisionStats(db, [id], now), reader.flows(db, [id])]);
  return toView(rule, versions[0]!, stats.get(id), flow, reader, versions);
}

/** 404 unless the rule exists in the caller's teams (a job's rule, before the job is made or read). */
export async function assertRuleVisible(db: Db, id: string, scope: RecordScope): Promise<void> {
  await readRuleInScope(db, id, scope);
}

/** The version a rule decides with now, with who stands behind it; 409 when the rule is not active. */
export async function activeVersionOf(db: Db, id: string): Promise<{ rule: RuleRow; version: RuleVersionView }> {
  const rule = await readRule(db, id);
  if (rule.status !== "active" || rule.active_version === null) {
    throw new AppError("conflict", `rule ${rule.name} is ${rule.status}: only an active rule applies (approve its version first)`);
  }
  const versions = await readVersions(db, id);
  const v = versions.find((x) => x.version === rule.active_version);
  if (!v) throw notFound(id);
  return { rule, version: toVersion(v) };
}

async function insertVersion(
  client: pg.PoolClient,
  id: string,
  version: number,
  body: { match: RuleMatch; action: RuleAction; replay: StoredReplay | null },
  ctx: RuleContext,
): Promise<void> {
  await client.query(
    `INSERT INTO rule_version (rule_id, version, match, action, replay, drafted_by_id, drafted_by_email, drafted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      id,
      version,
      JSON.stringify(body.match),
      JSON.stringify(body.action),
      body.replay == null ? null : JSON.stringify(body.replay),
      ctx.actor.id,
      ctx.actor.email,
      ctx.now,
    ],
  );
}

const audit = (ctx: RuleContext, action: string, id: string, after: Record<string, unknown>, before?: Record<string, unknown>) => ({
  ...auditActor(ctx.actor, ctx.requestId),
  action,
  targetType: "rule",
  targetId: id,
  after,
  ...(before ? { before } : {}),
});

/** A new rule, version 1, a draft until a second supervisor approves it. 409 when the name is taken. */
export async function createRule(pool: pg.Pool, body: CreateRuleBody, ctx: RuleContext): Promise<RuleView> {
  needs(ctx, "replays:approve", "drafting a rule");
  assertMatchInScope(ctx.scope, body.match);
  const replay = body.replay ? await storedReplay(body.replay, body.action, body.match, ctx) : null;
  const id = await inTransaction(pool, async (client) => {
    let inserted;
    try {
      inserted = await client.query<{ id: string }>(
        `INSERT INTO rule (name, status, latest_version, created_at, updated_at) VALUES ($1, 'draft', 1, $2, $2) RETURNING id::text AS id`,
        [body.name, ctx.now],
      );
    } catch (err) {
      if (!isUniqueViolation(err, "rule_name_key")) throw err;
      throw new AppError("conflict", `name: a rule named ${body.name} exists`, { issues: [{ path: "name", message: "is taken" }] });
    }
    const ruleId = inserted.rows[0]!.id;
    await insertVersion(client, ruleId, 1, { match: body.match, action: body.action, replay }, ctx);
    await appendAudit(
      client,
      [
        audit(ctx, "rule.created", ruleId, {
          name: body.name,
          version: 1,
          match: body.match,
          action: body.action,
          replay: replay && ctx.standing.view(replay),
        }),
      ],
      ctx.now,
    );
    return ruleId;
  });
  return getRule(pool, id, ctx.now, ctx.scope, ctx.standing);
}

/**
 * PATCH: `{enabled: false}` disables at once (supervisors and admins); `{enabled: true}` drafts the latest content
 * again as a new version, to be approved by a second supervisor; any other change is a new version (a draft).
 */
export async function patchRule(pool: pg.Pool, id: string, body: PatchRuleBody, ctx: RuleContext): Promise<RuleView> {
  if (body.enabled === false) needs(ctx, "rules:disable", "the kill switch");
  else needs(ctx, "replays:approve", body.enabled ? "enabling a rule" : "changing a rule");
  if (body.match) assertMatchInScope(ctx.scope, body.match);
  // A new replay is checked before the transaction (its sink may be slow to answer); the version's action and
  // match it is checked against are the ones the new version will have.
  let drafted: StoredReplay | null = null;
  if (body.replay) {
    const latest = (await readVersions(pool, id))[0];
    if (!latest) throw notFound(id);
    const current = toVersion(latest);
    drafted = await storedReplay(body.replay, body.action ?? current.action, body.match ?? current.match, ctx);
  }
  await inTransaction(pool, async (client) => {
    const rule = await readRuleInScope(client, id, ctx.scope, true);
    const [latest] = await readVersions(client, id);
    const current = toVersion(latest!);
    if (body.enabled === false) {
      if (rule.status === "disabled") return;
      await client.query(`UPDATE rule SET status = 'disabled', active_version = NULL, updated_at = $2 WHERE id = $1`, [id, ctx.now]);
      // What the rule queued for replay stops with it: its items wait in the paused batch (resume or cancel there).
      await ctx.standing.pause(client, { id, name: rule.name }, `rule ${rule.name} disabled by ${ctx.actor.email ?? ctx.actor.id}`, ctx);
      await appendAudit(
        client,
        [
          audit(
            ctx,
            "rule.disabled",
            id,
            { name: rule.name, status: "disabled" },
            { status: rule.status, activeVersion: rule.active_version },
          ),
        ],
        ctx.now,
      );
      return;
    }
    if (body.enabled === true) {
      if (rule.status === "active") return;
      if (rule.status === "draft") {
        throw new AppError(
          "conflict",
          `rule ${rule.name} is a draft: version ${rule.latest_version} waits for a second supervisor's approval`,
        );
      }
    }
    const next = {
      match: body.match ?? current.match,
      action: body.action ?? current.action,
      replay: body.replay === null ? null : body.replay ? drafted : replayOf(latest!),
    };
    if (next.replay && next.action.type !== "approve") {
      throw invalid("replay", "only a rule that approves records replays them: remove the replay (replay: null) or keep approve");
    }
    const version = rule.latest_version + 1;
    await insertVersion(client, id, version, next, ctx);
    await client.query(`UPDATE rule SET status = 'draft', latest_version = $2, active_version = NULL, updated_at = $3 WHERE id = $1`, [
      id,
      version,
      ctx.now,
    ]);
    await appendAudit(
      client,
      [
        audit(
          ctx,
          body.enabled ? "rule.enable_requested" : "rule.changed",
          id,
          {
            name: rule.name,
            version,
            match: next.match,
            action: next.action,
            replay: next.replay && ctx.standing.view(next.replay),
            status: "draft",
          },
          { version: rule.latest_version, status: rule.status, activeVersion: rule.active_version },
        ),
      ],
      ctx.now,
    );
  });
  return getRule(pool, id, ctx.now, ctx.scope, ctx.standing);
}

/** A second supervisor approves exactly `version` (the latest, a draft): the rule is active with it. */
export async function approveRule(pool: pg.Pool, id: string, version: number, ctx: RuleContext): Promise<RuleView> {
  needs(ctx, "replays:approve", "approving a rule");
  await inTransaction(pool, async (client) => {
    const rule = await readRuleInScope(client, id, ctx.scope, true);
    if (version !== rule.latest_version) {
      throw new AppError("conflict", `version ${version} is not rule ${rule.name}'s latest (${rule.latest_version}): review that one`, {
        issues: [{ path: "version", message: `is ${rule.latest_version} now` }],
      });
    }
    if (rule.status !== "draft") {
      throw new AppError("conflict", `rule ${rule.name} is ${rule.status}: nothing waits for approval`);
    }
    const { rows } = await client.query<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM rule_version WHERE rule_id = $1 AND version = $2`, [
      id,
      version,
    ]);
    const v = rows[0]!;
    assertFourEyes({ createdById: v.drafted_by_id ?? "" }, { userId: ctx.actor.id ?? "" }, undefined, "a rule version");
    await client.query(
      `UPDATE rule_version SET approved_by_id = $3, approved_by_email = $4, approved_at = $5 WHERE rule_id = $1 AND version = $2`,
      [id, version, ctx.actor.id, ctx.actor.email, ctx.now],
    );
    await client.query(`UPDATE rule SET status = 'active', active_version = $2, updated_at = $3 WHERE id = $1`, [id, version, ctx.now]);
    const approvers = approversOf({ draftedBy: { id: v.drafted_by_id, email: v.drafted_by_email }, approvedBy: ctx.actor });
    const replay = replayOf(v);
    await appendAudit(
      client,
      [
        audit(ctx, "rule.approved", id, {
          name: rule.name,
          version,
          status: "active",
          approvers,
          match: v.match,
          action: v.action,
          replay: replay && ctx.standing.view(replay),
        }),
      ],
      ctx.now,
    );
    if (replay) {
      const spec = {
        rule: { id, name: rule.name, version },
        replay,
        draftedById: v.drafted_by_id,
        approvedById: ctx.actor.id,
        approvers,
      };
      await ctx.standing.open(client, spec, ctx);
    }
  });
  return getRule(pool, id, ctx.now, ctx.scope, ctx.standing);
}

/**
 * A supervisor resumes the rule's standing replay, paused by its canary (or by the engine's failure check): its
 * canary watches again from now, and the rule's canary alert resolves.
 */
export async function resumeRule(pool: pg.Pool, id: string, ctx: RuleContext): Promise<RuleView> {
  needs(ctx, "replays:approve", "resuming a rule's standing replay");
  await inTransaction(pool, async (client) => {
    const rule = await readRuleInScope(client, id, ctx.scope);
    const batchId = await ctx.standing.resume(client, { id, name: rule.name }, ctx);
    await appendAudit(client, [audit(ctx, "rule.replay_resumed", id, { name: rule.name, batch: batchId })], ctx.now);
  });
  return getRule(pool, id, ctx.now, ctx.scope, ctx.standing);
}

/** An active rule as the store step and the apply job decide with it. */
export interface ActiveRule {
  id: string;
  name: string;
  version: number;
  match: RuleMatch;
  action: RuleAction;
  approvers: string[];
  /** the version carries a standing replay: what it approves joins its batch */
  replays?: boolean;
}

/**
 * The active rules, oldest first (the first that decides a record wins), read in the caller's transaction with a
 * share lock: a kill switch waits for stores already deciding with the rule, and every store after it commits
 * sees the rule disabled.
 */
export async function activeRules(client: pg.PoolClient): Promise<ActiveRule[]> {
  const { rows } = await client.query<{
    id: string;
    name: string;
    version: number;
    match: unknown;
    action: unknown;
    drafted: string | null;
    approved: string | null;
    replays: boolean;
  }>(
    `SELECT r.id::text AS id, r.name, v.version, v.match, v.action, v.replay IS NOT NULL AS replays,
       coalesce(v.drafted_by_email, v.drafted_by_id) AS drafted,
       coalesce(v.approved_by_email, v.approved_by_id) AS approved
     FROM rule r JOIN rule_version v ON v.rule_id = r.id AND v.version = r.active_version
     WHERE r.status = 'active' ORDER BY r.id FOR SHARE OF r`,
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    version: r.version,
    match: RuleMatchSchema.parse(r.match),
    action: RuleActionSchema.parse(r.action),
    approvers: [r.drafted, r.approved].filter((x): x is string => x !== null),
    ...(r.replays ? { replays: true } : {}),
  }));
}

/** What one store batch or apply page matched and decided, per rule version (appended, never updated). */
export async function recordMatches(
  client: pg.PoolClient,
  counts: { ruleId: string; version: number; matched: number; decided: number }[],
  now: Date,
): Promise<void> {
  if (counts.length === 0) return;
  await client.query(
    `INSERT INTO rule_match_stat (rule_id, version, at, matched, decided)
     SELECT rule_id, version, $5, matched, decided FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[]) AS t(rule_id, version, matched, decided)`,
    [counts.map((c) => c.ruleId), counts.map((c) => c.version), counts.map((c) => c.matched), counts.map((c) => c.decided), now],
  );
}

/** Records a rule had decided that failed again after their replay, per rule version (one store's count). */
export async function recordRefailures(
  client: pg.PoolClient,
  counts: { ruleId: string; version: number; failed: number }[],
  now: Date,
): Promise<void> {
  if (counts.length === 0) return;
  await client.query(
    `INSERT INTO rule_match_stat (rule_id, version, at, matched, decided, failed_after_replay)
     SELECT rule_id, version, $4, 0, 0, failed FROM unnest($1::bigint[], $2::int[], $3::int[]) AS t(rule_id, version, failed)`,
    [counts.map((c) => c.ruleId), counts.map((c) => c.version), counts.map((c) => c.failed), now],
  );
}
