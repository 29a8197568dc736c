import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError } from "../errors/app-error";
import { appendAudit } from "../audit/append";
import { inTransaction } from "../db/transaction";
import { getEnv } from "../env";
import { accountRefusal } from "./account-policy";
import { actorFields, type AuditContext } from "./audit-context";
import { isRole, type Role } from "./permissions";
import type { Principal } from "./principal";
import type { CreatedToken, TokenView } from "./account-schemas";
import { displayPrefix, generateToken, hashToken } from "./token-format";

// API tokens for scripts and producers: created (shown once), listed, revoked. Creation and revocation are
// audited in the transaction that makes them.

/** last_used_at is bookkeeping, not an audit record: write it at most once a minute per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  user_id: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

function view(row: TokenRow): TokenView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    userId: row.user_id,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

/** The principal a bearer token stands for, or null when it is unknown, revoked or its user may not sign in. */
export async function authenticateToken(pool: pg.Pool, token: string, now: Date): Promise<Omit<Principal, "scope"> | null> {
  const { rows } = await pool.query<{
    id: string;
    revoked_at: Date | null;
    last_used_at: Date | null;
    user_id: string;
    email: string;
    name: string;
    role: string;
    disabled: boolean;
    demo: boolean;
  }>(
    `SELECT t.id, t.revoked_at, t.last_used_at, u.id AS user_id, u.email, u.name, u.role::text AS role, u.disabled, u.demo
       FROM api_token t JOIN "user" u ON u.id = t.user_id
      WHERE t.token_hash = $1`,
    [hashToken(token)],
  );
  const row = rows[0];
  if (!row || row.revoked_at !== null || !isRole(row.role)) return null;
  if (accountRefusal(row, getEnv())) return null;
  if (row.last_used_at === null || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
    // The WHERE repeats the check so concurrent requests with the same token write once.
    await pool.query(
      `UPDATE api_token SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '1 minute')`,
      [row.id, now],
    );
  }
  return { userId: row.user_id, email: row.email, name: row.name, role: row.role as Role, via: "token", tokenId: row.id };
}

/** Creates a token for `userId`; the returned `token` is the only copy there will ever be. */
export async function createApiToken(pool: pg.Pool, input: { userId: string; name: string }, ctx: AuditContext): Promise<CreatedToken> {
  const token = generateToken();
  const id = randomUUID();
  const prefix = displayPrefix(token);
  return inTransaction(pool, async (client) => {
    const owner = await client.query<{ email: string; disabled: boolean }>(`SELECT email, disabled FROM "user" WHERE id = $1 FOR SHARE`, [
      input.userId,
    ]);
    const user = owner.rows[0];
    if (!user) throw new AppError("not_found", `user ${input.userId} does not exist`);
    if (user.disabled) throw new AppError("conflict", `user ${user.email} is disabled: enable the account before creating tokens for it`);
    await client.query(`INSERT INTO api_token (id, user_id, name, token_hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
      id,
      input.userId,
      input.name,
      hashToken(token),
      prefix,
      ctx.now,
    ]);
    await appendAudit(
      client,
      [
        {
          ...actorFields(ctx),
          action: "token.created",
          targetType: "api_token",
          targetId: id,
          after: { name: input.name, prefix, userId: input.userId, userEmail: user.email },
        },
      ],
      ctx.now,
    );
    return { id, token, prefix, name: input.name, createdAt: ctx.now.toISOString() };
  });
}

/** A user's tokens, newest first, revoked ones included (they say when they were revoked). */
export async function listApiTokens(pool: pg.Pool, userId: string): Promise<TokenView[]> {
  const { rows } = await pool.query<TokenRow>(
    `SELECT id, name, prefix, user_id, created_at, last_used_at, revoked_at FROM api_token
      WHERE user_id = $1 ORDER BY created_at DESC, id`,
    [userId],
  );
  return rows.map(view);
}

/** Every user's tokens with their owner's e-mail, newest first: what an admin (tokens:manage) looks through. */
export async function listAllApiTokens(pool: pg.Pool): Promise<TokenView[]> {
  const { rows } = await pool.query<TokenRow & { email: string }>(
    `SELECT t.id, t.name, t.prefix, t.user_id, t.created_at, t.last_used_at, t.revoked_at, u.email
     FROM api_token t JOIN "user" u ON u.id = t.user_id ORDER BY t.created_at DESC, t.id`,
  );
  return rows.map((r) => ({ ...view(r), userEmail: r.email }));
}

/**
 * Revokes a token. `ownerId` restricts it to that user's tokens (someone else's token is "not found", so ids
 * cannot be probed); null lets an admin revoke any token. Revoking a revoked token changes nothing.
 */
export async function revokeApiToken(pool: pg.Pool, input: { id: string; ownerId: string | null }, ctx: AuditContext): Promise<TokenView> {
  return inTransaction(pool, async (client) => {
    const found = await client.query<TokenRow & { email: string }>(
      `SELECT t.id, t.name, t.prefix, t.user_id, t.created_at, t.last_used_at, t.revoked_at, u.email
         FROM api_token t JOIN "user" u ON u.id = t.user_id WHERE t.id = $1 FOR UPDATE OF t`,
      [input.id],
    );
    const row = found.rows[0];
    if (!row || (input.ownerId !== null && row.user_id !== input.ownerId))
      throw new AppError("not_found", `token ${input.id} does not exist`);
    if (row.revoked_at !== null) return view(row);
    const updated = await client.query<TokenRow>(
      `UPDATE api_token SET revoked_at = $2 WHERE id = $1
       RETURNING id, name, prefix, user_id, created_at, last_used_at, revoked_at`,
      [input.id, ctx.now],
    );
    await appendAudit(
      client,
      [
        {
          ...actorFields(ctx),
          action: "token.revoked",
          targetType: "api_token",
          targetId: row.id,
          before: { revokedAt: null },
          after: { revokedAt: ctx.now.toISOString(), name: row.name, prefix: row.prefix, userId: row.user_id, userEmail: row.email },
        },
      ],
      ctx.now,
    );
    return view(updated.rows[0] ?? row);
  });
}
