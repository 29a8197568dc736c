import "server-only";
import type { GenericEndpointContext, ValidateUserInfoResult, ValidateUserInfoSource } from "better-auth";
import { getIP } from "better-auth/api";
import { appendAudit, type AuditInput } from "../audit/append";
import { auditActor, type Actor } from "../audit/actor";
import { unverifiedActor, userActor } from "./audit-context";
import type { Db } from "../db/client";
import { inTransaction } from "../db/transaction";
import type { Role } from "./permissions";
import { OIDC_PROVIDER_ID, type SsoConfig } from "./sso-config";
import { decideRole } from "./sso-roles";
import { decideTeams } from "./sso-teams";
import type pg from "pg";

// What Redrive adds to better-auth's OAuth callback (its generic OAuth plugin checks state, PKCE, the ID token's
// signature, issuer, audience and nonce): the role from the provider's claims, decided in validateUserInfo (the one
// hook that sees the fresh claims, at every sign-in), then applied and audited as the user row and the session are
// written. A decision is kept per request between those hooks.

interface SsoDecision {
  role: Role;
  /** the teams REDRIVE_OIDC_TEAM_MAP manages, and those the person's groups put them in */
  teams: { managed: string[]; member: string[] };
  groups: string[];
  matched: string;
  issuer: string;
  subject: string;
}

const decisions = new WeakMap<Request, SsoDecision>();

/** Who changes a user's role to what their groups at the identity provider give. */
const SSO_ACTOR: Actor = { id: null, email: "sso", role: "system" };

/** Audit events keep at most this many of a person's groups (Entra ID can send hundreds). */
const MAX_AUDITED_GROUPS = 50;

type Ctx = GenericEndpointContext | null | undefined;

export const isSsoCallback = (ctx: Ctx): boolean => ctx?.path === "/callback/:id" && ctx.params?.id === OIDC_PROVIDER_ID;

function requestFacts(ctx: Ctx): { ip: string | null; requestId: string | null } {
  const request = ctx?.request;
  return {
    ip: request && ctx ? getIP(request, ctx.context.options) : null,
    requestId: request?.headers.get("x-request-id")?.slice(0, 100) ?? null,
  };
}

async function audit(db: Db, events: AuditInput[]): Promise<void> {
  await inTransaction(db.pool, (client) => appendAudit(client, events, new Date()));
}

export const NO_MAPPED_GROUP = "no_mapped_group";

/**
 * better-auth's validateUserInfo for the OIDC provider: refuses (and audits) a person none of whose groups is
 * mapped to a role, and remembers the role of everyone else for the hooks below.
 */
export async function decideSsoRole(
  db: Db,
  config: SsoConfig,
  data: { user: Record<string, unknown>; source: ValidateUserInfoSource },
  ctx: GenericEndpointContext,
): Promise<ValidateUserInfoResult | void> {
  const { source } = data;
  if (source.method !== "oauth" || source.oauth?.providerId !== OIDC_PROVIDER_ID || !config.provider) return;
  const claims = source.oauth.profile ?? {};
  const decision = decideRole(claims, config.mapping);
  const subject = String(claims.sub ?? "");
  const issuer = typeof claims.iss === "string" ? claims.iss : config.provider.issuer;
  const groups = decision.values.slice(0, MAX_AUDITED_GROUPS);
  if (decision.role === null) {
    const { ip, requestId } = requestFacts(ctx);
    // Someone who has an account here but no mapped group any more: their other sessions end with it.
    const userId = source.action === "sign-in" && typeof data.user.id === "string" ? data.user.id : null;
    await inTransaction(db.pool, async (client) => {
      const ended = userId ? ((await client.query(`DELETE FROM session WHERE user_id = $1`, [userId])).rowCount ?? 0) : 0;
      await appendAudit(
        client,
        [
          {
            ...auditActor(unverifiedActor(typeof data.user.email === "string" ? data.user.email.slice(0, 254) : null)),
            action: "auth.sso_refused",
            targetType: "user",
            targetId: userId,
            reason: NO_MAPPED_GROUP,
            after: { issuer, subject, claim: config.mapping.claim, groups, ip, ...(userId ? { sessionsRevoked: ended } : {}) },
            requestId,
          },
        ],
        new Date(),
      );
    });
    return { error: NO_MAPPED_GROUP, errorDescription: "None of your groups at the identity provider gives access to Redrive." };
  }
  if (!ctx.request) return { error: "sso_request_missing", errorDescription: "Single sign-on needs the browser's request." };
  const teams = decideTeams(decision.values, config.teamMap);
  decisions.set(ctx.request, { role: decision.role, teams, groups, matched: decision.matched, issuer, subject });
}

function decisionOf(ctx: Ctx): SsoDecision | undefined {
  return isSsoCallback(ctx) && ctx?.request ? decisions.get(ctx.request) : undefined;
}

/** user.create.before: a just-in-time account gets the role its groups give. */
export function ssoUserData<U extends Record<string, unknown>>(user: U, ctx: Ctx): { data: U & { role: Role } } | undefined {
  const decision = decisionOf(ctx);
  return decision ? { data: { ...user, role: decision.role } } : undefined;
}

/** user.create.after: the just-in-time account, audited. */
export async function auditSsoUserCreated(db: Db, user: { id: string; email: string; name: string }, ctx: Ctx): Promise<void> {
  const decision = decisionOf(ctx);
  if (!decision) return;
  await audit(db, [
    {
      ...auditActor({ id: user.id, email: user.email, role: decision.role }),
      action: "user.created",
      targetType: "user",
      targetId: user.id,
      after: {
        email: user.email,
        name: user.name,
        role: decision.role,
        via: "sso",
        issuer: decision.issuer,
        subject: decision.subject,
        groups: decision.groups,
      },
      requestId: requestFacts(ctx).requestId,
    },
  ]);
}

/**
 * session.create.before, on an SSO sign-in: the user's role becomes what the groups say now (audited when it
 * changes). Throws when the decision is missing, so no SSO session is made without one.
 */
export async function applySsoRole(db: Db, userId: string, ctx: Ctx): Promise<void> {
  if (!isSsoCallback(ctx)) return;
  const decision = decisionOf(ctx);
  if (!decision) throw new Error("SSO sign-in without a role decision");
  await inTransaction(db.pool, async (client) => {
    const { rows } = await client.query<{ role: string; email: string }>(
      `SELECT role::text AS role, email FROM "user" WHERE id = $1 FOR UPDATE`,
      [userId],
    );
    const before = rows[0];
    if (!before) return;
    const now = new Date();
    await applySsoTeams(client, userId, before.email, decision, now, requestFacts(ctx).requestId);
    if (before.role === decision.role) return;
    await client.query(`UPDATE "user" SET role = $2::"Role", updated_at = $3 WHERE id = $1`, [userId, decision.role, now]);
    await appendAudit(
      client,
      [
        {
          ...auditActor(SSO_ACTOR),
          action: "user.role_changed",
          targetType: "user",
          targetId: userId,
          before: { role: before.role },
          after: { role: decision.role, userEmail: before.email, via: "sso", groups: decision.groups, matched: decision.matched },
          requestId: requestFacts(ctx).requestId,
        },
      ],
      now,
    );
  });
}

/**
 * The user's memberships of the teams the map manages become what the groups say now, in the role's transaction;
 * audited as team.sso_synced when they change. A managed team that does not exist yet is skipped (an admin creates
 * teams and names their records; the map only places people).
 */
async function applySsoTeams(
  client: pg.PoolClient,
  userId: string,
  email: string,
  decision: SsoDecision,
  now: Date,
  requestId: string | null,
): Promise<void> {
  if (decision.teams.managed.length === 0) return;
  const { rows } = await client.query<{ id: string; name: string; member: boolean }>(
    `SELECT t.id::text AS id, t.name, EXISTS (SELECT 1 FROM team_member m WHERE m.team_id = t.id AND m.user_id = $2) AS member
     FROM team t WHERE t.name = ANY($1::text[]) ORDER BY t.name FOR UPDATE`,
    [decision.teams.managed, userId],
  );
  const wanted = new Set(decision.teams.member);
  const join = rows.filter((t) => wanted.has(t.name) && !t.member);
  const leave = rows.filter((t) => !wanted.has(t.name) && t.member);
  if (join.length === 0 && leave.length === 0) return;
  if (join.length)
    await client.query("INSERT INTO team_member (team_id, user_id) SELECT unnest($1::bigint[]), $2 ON CONFLICT DO NOTHING", [
      join.map((t) => t.id),
      userId,
    ]);
  if (leave.length)
    await client.query("DELETE FROM team_member WHERE team_id = ANY($1::bigint[]) AND user_id = $2", [leave.map((t) => t.id), userId]);
  await appendAudit(
    client,
    [
      {
        ...auditActor(SSO_ACTOR),
        action: "team.sso_synced",
        targetType: "user",
        targetId: userId,
        before: { teams: rows.filter((t) => t.member).map((t) => t.name) },
        after: { teams: rows.filter((t) => wanted.has(t.name)).map((t) => t.name), userEmail: email, groups: decision.groups },
        requestId,
      },
    ],
    now,
  );
}

/** session.create.after: the SSO sign-in, audited with the identity it was made for. */
export async function auditSsoSignIn(db: Db, session: { id: string; userId: string; expiresAt: Date }, ctx: Ctx): Promise<void> {
  const decision = decisionOf(ctx);
  if (!decision) return;
  const { rows } = await db.pool.query<{ email: string; role: string }>(`SELECT email, role::text AS role FROM "user" WHERE id = $1`, [
    session.userId,
  ]);
  const { ip, requestId } = requestFacts(ctx);
  await audit(db, [
    {
      ...auditActor(userActor({ id: session.userId, email: rows[0]?.email ?? null, role: rows[0]?.role })),
      action: "auth.sso_sign_in",
      targetType: "user",
      targetId: session.userId,
      after: {
        sessionId: session.id,
        ip,
        expiresAt: session.expiresAt.toISOString(),
        issuer: decision.issuer,
        subject: decision.subject,
        groups: decision.groups,
      },
      requestId,
    },
  ]);
}
