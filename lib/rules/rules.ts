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
  RuleReplaySchema,
  type CreateRuleBody,
  type PatchRuleBody,
  type RuleAction,
  type RuleMatch,
  type RuleStatus,
  type RuleVersionView,
  type RuleView,
} from "./rule-schemas";
import { inScope, type RecordScope } from "../scope/record-scope";

// Triage rules under four eyes: a supervisor drafts a version, another approves exactly that version, and only
// then does it decide records. Versions are immutable (a trigger refuses changes): a change of match, action or
// replay is a new version, and the rule decides nothing until that one is approved. The kill switch takes the
// rule out at once; enabling it again is a new version (the same content) needing a second supervisor again.
// Every change is audited in the transaction that makes it.

export interface RuleContext {
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

function needs(ctx: RuleContext, permission: "replays:approve" | "rules:disable", what: string): void {
  if (!can(ctx.role, permission)) {
    throw new AppError("forbidden", `role ${ctx.role} lacks permission ${permission} (${what})`, { details: { permission } });
  }
}

/** A standing replay is part of the rule's body; until it is built, a rule carrying one is refused, not kept idle. */
function refuseReplay(replay: unknown): void {
  if (replay === undefined || replay === null) return;
  const message = "standing replays are not available yet: create the rule without one and replay its approved records in a batch";
  throw new AppError("validation_failed", `replay: ${message}`, { issues: [{ path: "replay", message }] });
}

function toVersion(v: VersionRow): RuleVersionView {
  return {
    version: v.version,
    match: RuleMatchSchema.parse(v.match),
    action: RuleActionSchema.parse(v.action),
    replay: v.replay === null ? null : RuleReplaySchema.parse(v.replay),
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
}

/** Each rule's decisions today and in the last 7 days (UTC days), and its last match (rule_match_stat). */
async function decisionStats(db: Db, ids: string[], now: Date): Promise<Map<string, RuleStats>> {
  if (ids.length === 0) return new Map();
  const today = startOfDay(now);
  const week = new Date(today.getTime() - 6 * 86_400_000);
  const { rows } = await db.query<{ id: string; today: number; week: number; last: Date | null }>(
    `SELECT rule_id::text AS id, coalesce(sum(decided) FILTER (WHERE at >= $2), 0)::int AS today,
       coalesce(sum(decided) FILTER (WHERE at >= $3), 0)::int AS week, max(at) AS last
     FROM rule_match_stat WHERE rule_id = ANY($1::bigint[]) GROUP BY rule_id`,
    [ids, today, week],
  );
  return new Map(rows.map((r) => [r.id, { today: r.today, week: r.week, last: r.last }]));
}

function toView(r: RuleRow, latest: VersionRow, stats: RuleStats | undefined, versions?: VersionRow[]): RuleView {
  const v = toVersion(latest);
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
    stats: { decidedToday: stats?.today ?? 0, decidedThisWeek: stats?.week ?? 0, lastMatchAt: stats?.last?.toISOString() ?? null },
    ...(versions ? { versions: versions.map(toVersion) } : {}),
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

/** A rule outside the caller's teams is answered as no rule at all (404), never 403. */
async function readRuleInScope(db: Db, id: string, scope: RecordScope, lock = false): Promise<RuleRow> {
  const rule = await readRule(db, id, lock);
  if (scope.all) return rule;
  const [latest] = await readVersions(db, id);
  if (!latest || !ruleInScope(scope, RuleMatchSchema.parse(latest.match))) throw notFound(id);
  return rule;
}

/** Every rule with its latest version, by name: those in the caller's teams. */
export async function listRules(db: Db, now: Date, scope: RecordScope): Promise<RuleView[]> {
  const { rows } = await db.query<RuleRow & { v: VersionRow }>(
    `SELECT r.id::text AS id, r.name, r.status, r.latest_version, r.active_version, r.created_at, r.updated_at, to_jsonb(v) AS v
     FROM rule r JOIN rule_version v ON v.rule_id = r.id AND v.version = r.latest_version
     ORDER BY r.name`,
  );
  const stats = await decisionStats(
    db,
    rows.map((r) => r.id),
    now,
  );
  return rows.map((r) => toView(r, versionFromJson(r.v), stats.get(r.id))).filter((r) => ruleInScope(scope, r.match));
}

/** to_jsonb(rule_version) gives timestamps as text. */
function versionFromJson(v: VersionRow): VersionRow {
  const date = (x: unknown) => (x === null ? null : new Date(x as string));
  return { ...v, drafted_at: date(v.drafted_at) as Date, approved_at: date(v.approved_at) };
}

/** One rule with every version, newest first. */
export async function getRule(db: Db, id: string, now: Date, scope: RecordScope): Promise<RuleView> {
  const rule = await readRuleInScope(db, id, scope);
  const versions = await readVersions(db, id);
  const stats = await decisionStats(db, [id], now);
  return toView(rule, versions[0]!, stats.get(id), versions);
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
  body: { match: RuleMatch; action: RuleAction; replay: unknown },
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
  refuseReplay(body.replay);
  assertMatchInScope(ctx.scope, body.match);
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
    await insertVersion(client, ruleId, 1, { ...body, replay: null }, ctx);
    await appendAudit(
      client,
      [audit(ctx, "rule.created", ruleId, { name: body.name, version: 1, match: body.match, action: body.action })],
      ctx.now,
    );
    return ruleId;
  });
  return getRule(pool, id, ctx.now, ctx.scope);
}

/**
 * PATCH: `{enabled: false}` disables at once (supervisors and admins); `{enabled: true}` drafts the latest content
 * again as a new version, to be approved by a second supervisor; any other change is a new version (a draft).
 */
export async function patchRule(pool: pg.Pool, id: string, body: PatchRuleBody, ctx: RuleContext): Promise<RuleView> {
  if (body.enabled === false) needs(ctx, "rules:disable", "the kill switch");
  else needs(ctx, "replays:approve", body.enabled ? "enabling a rule" : "changing a rule");
  refuseReplay(body.replay);
  if (body.match) assertMatchInScope(ctx.scope, body.match);
  await inTransaction(pool, async (client) => {
    const rule = await readRuleInScope(client, id, ctx.scope, true);
    const [latest] = await readVersions(client, id);
    const current = toVersion(latest!);
    if (body.enabled === false) {
      if (rule.status === "disabled") return;
      await client.query(`UPDATE rule SET status = 'disabled', active_version = NULL, updated_at = $2 WHERE id = $1`, [id, ctx.now]);
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
      replay: null,
    };
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
          { name: rule.name, version, match: next.match, action: next.action, status: "draft" },
          { version: rule.latest_version, status: rule.status, activeVersion: rule.active_version },
        ),
      ],
      ctx.now,
    );
  });
  return getRule(pool, id, ctx.now, ctx.scope);
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
    await appendAudit(
      client,
      [audit(ctx, "rule.approved", id, { name: rule.name, version, status: "active", approvers, match: v.match, action: v.action })],
      ctx.now,
    );
  });
  return getRule(pool, id, ctx.now, ctx.scope);
}

/** An active rule as the store step and the apply job decide with it. */
export interface ActiveRule {
  id: string;
  name: string;
  version: number;
  match: RuleMatch;
  action: RuleAction;
  approvers: string[];
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
  }>(
    `SELECT r.id::text AS id, r.name, v.version, v.match, v.action, coalesce(v.drafted_by_email, v.drafted_by_id) AS drafted,
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
