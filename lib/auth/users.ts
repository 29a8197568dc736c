import "server-only";
import { randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError } from "../errors/app-error";
import { appendAudit, type AuditInput } from "../audit/append";
import type { Db } from "../db/client";
import { isUniqueViolation } from "../db/pg-errors";
import { inTransaction } from "../db/transaction";
import { actorFields, type AuditContext } from "./audit-context";
import { hashPassword, verifyPassword } from "./auth";
import { isRole, type Role } from "./permissions";
import { PasswordSchema, type UserView } from "./account-schemas";
import { breakGlassChangeRefusal } from "./break-glass";
import { breakGlassSettingsOf, readSsoSettings } from "./sso-config";
import { getEnv } from "../env";

// Accounts are managed here, not through better-auth's endpoints (sign-up and update-user are disabled): every
// change is written together with its audit event in one transaction. Rows have better-auth's shape: a
// "credential" account whose account_id is the user id holds the scrypt hash that sign-in verifies.

interface UserRow {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  demo: boolean;
  created_at: Date;
}

const USER_COLUMNS = `id, email, name, role::text AS role, disabled, demo, created_at`;

function view(row: UserRow): UserView {
  if (!isRole(row.role)) throw new Error(`user ${row.id} has unknown role ${row.role}`);
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    disabled: row.disabled,
    demo: row.demo,
    createdAt: row.created_at.toISOString(),
  };
}

export function generatePassword(): string {
  return randomBytes(18).toString("base64url"); // 24 characters, 144 bits
}

function checkPassword(password: string): void {
  const r = PasswordSchema.safeParse(password);
  if (!r.success) {
    const message = r.error.issues[0]?.message ?? "is invalid";
    throw new AppError("validation_failed", `password: ${message}`, { issues: [{ path: "password", message }] });
  }
}

export async function listUsers(pool: pg.Pool): Promise<UserView[]> {
  const { rows } = await pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM "user" ORDER BY email`);
  return rows.map(view);
}

export async function findUserByEmail(pool: pg.Pool, email: string): Promise<UserView | null> {
  const { rows } = await pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM "user" WHERE email = $1`, [email.trim().toLowerCase()]);
  return rows[0] ? view(rows[0]) : null;
}

export interface CreateUserInput {
  email: string;
  name?: string | undefined;
  role: Role;
  /** omitted: a random one is generated and returned */
  password?: string | undefined;
  demo?: boolean;
}

export async function createUser(
  pool: pg.Pool,
  input: CreateUserInput,
  ctx: AuditContext,
): Promise<{ user: UserView; password: string; generated: boolean }> {
  const email = input.email.trim().toLowerCase();
  const generated = input.password === undefined;
  const password = input.password ?? generatePassword();
  checkPassword(password);
  const hash = await hashPassword(password); // scrypt: outside the transaction, which holds no lock meanwhile
  const id = randomUUID();
  const name = input.name?.trim() || email.split("@")[0] || email;
  try {
    const user = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<UserRow>(
        `INSERT INTO "user" (id, name, email, email_verified, role, disabled, demo, created_at, updated_at)
         VALUES ($1, $2, $3, false, $4::"Role", false, $5, $6, $6) RETURNING ${USER_COLUMNS}`,
        [id, name, email, input.role, input.demo ?? false, ctx.now],
      );
      await client.query(
        `INSERT INTO account (id, account_id, provider_id, user_id, password, created_at, updated_at)
         VALUES ($1, $2, 'credential', $2, $3, $4, $4)`,
        [randomUUID(), id, hash, ctx.now],
      );
      const created = view(rows[0] as UserRow);
      await appendAudit(
        client,
        [
          {
            ...actorFields(ctx),
            action: "user.created",
            targetType: "user",
            targetId: id,
            after: { email, name, role: input.role, demo: created.demo, passwordGenerated: generated },
          },
        ],
        ctx.now,
      );
      return created;
    });
    return { user, password, generated };
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError("conflict", `email: a user with email ${email} already exists`, {
        issues: [{ path: "email", message: "already exists" }],
      });
    }
    throw err;
  }
}

/** Sets (or resets) a user's password and signs them out everywhere. */
export async function setPassword(
  pool: pg.Pool,
  userId: string,
  password: string | undefined,
  ctx: AuditContext,
): Promise<{ password: string; generated: boolean }> {
  const generated = password === undefined;
  const plain = password ?? generatePassword();
  checkPassword(plain);
  const hash = await hashPassword(plain);
  await inTransaction(pool, async (client) => {
    const user = await client.query<{ id: string }>(`SELECT id FROM "user" WHERE id = $1 FOR UPDATE`, [userId]);
    if (!user.rows[0]) throw new AppError("not_found", `user ${userId} does not exist`);
    const updated = await client.query(
      `UPDATE account SET password = $2, updated_at = $3 WHERE user_id = $1 AND provider_id = 'credential' AND account_id = $1`,
      [userId, hash, ctx.now],
    );
    if (updated.rowCount === 0) {
      await client.query(
        `INSERT INTO account (id, account_id, provider_id, user_id, password, created_at, updated_at)
         VALUES ($1, $2, 'credential', $2, $3, $4, $4)`,
        [randomUUID(), userId, hash, ctx.now],
      );
    }
    const sessions = await client.query(`DELETE FROM session WHERE user_id = $1`, [userId]);
    await appendAudit(
      client,
      [
        {
          ...actorFields(ctx),
          action: "user.password_set",
          targetType: "user",
          targetId: userId,
          after: { passwordGenerated: generated, sessionsRevoked: sessions.rowCount ?? 0 },
        },
      ],
      ctx.now,
    );
  });
  return { password: plain, generated };
}

/**
 * Changes a user's role and/or disables or enables them. Disabling also ends their sessions (their API tokens
 * stop working at once as well: authentication checks the flag). The last enabled admin cannot be demoted
 * or disabled, so the instance never loses its administrators.
 */
export async function updateUser(
  pool: pg.Pool,
  userId: string,
  patch: { role?: Role | undefined; disabled?: boolean | undefined },
  ctx: AuditContext,
): Promise<UserView> {
  return inTransaction(pool, async (client) => {
    const mayDropAdmin = (patch.role !== undefined && patch.role !== "admin") || patch.disabled === true;
    // The SSO settings first, shared: an admin turning password sign-in off (sso-settings.ts, which locks them
    // before checking the break-glass account) and this change then serialise, in the same lock order.
    const sso = mayDropAdmin ? breakGlassSettingsOf(getEnv(), await readSsoSettings(client, "FOR SHARE")) : null;
    // Lock the enabled admins first, always in id order: two admins demoting each other at the same moment
    // then serialise instead of both seeing the other as the one who remains.
    const admins = mayDropAdmin
      ? (await client.query<{ id: string }>(`SELECT id FROM "user" WHERE role = 'admin' AND NOT disabled ORDER BY id FOR UPDATE`)).rows
      : [];
    const found = await client.query<UserRow>(`SELECT ${USER_COLUMNS} FROM "user" WHERE id = $1 FOR UPDATE`, [userId]);
    const before = found.rows[0] ? view(found.rows[0]) : null;
    if (!before) throw new AppError("not_found", `user ${userId} does not exist`);
    const role = patch.role ?? before.role;
    const disabled = patch.disabled ?? before.disabled;
    const wasActiveAdmin = before.role === "admin" && !before.disabled;
    if (wasActiveAdmin && (role !== "admin" || disabled) && !admins.some((a) => a.id !== userId)) {
      throw new AppError("conflict", `${before.email} is the last enabled admin: make someone else admin first`);
    }
    if (role === before.role && disabled === before.disabled) return before;
    const breakGlass = sso && breakGlassChangeRefusal(sso, before, { role, disabled });
    if (breakGlass) {
      throw new AppError("validation_failed", `${breakGlass.path}: ${before.email} ${breakGlass.message}`, { issues: [breakGlass] });
    }

    const { rows } = await client.query<UserRow>(
      `UPDATE "user" SET role = $2::"Role", disabled = $3, updated_at = $4 WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      [userId, role, disabled, ctx.now],
    );
    const events: AuditInput[] = [];
    const target = { ...actorFields(ctx), targetType: "user", targetId: userId };
    if (role !== before.role) {
      events.push({ ...target, action: "user.role_changed", before: { role: before.role }, after: { role, userEmail: before.email } });
    }
    if (disabled !== before.disabled) {
      const sessions = disabled ? await client.query(`DELETE FROM session WHERE user_id = $1`, [userId]) : null;
      events.push({
        ...target,
        action: disabled ? "user.disabled" : "user.enabled",
        before: { disabled: before.disabled },
        after: { disabled, userEmail: before.email, ...(sessions ? { sessionsRevoked: sessions.rowCount ?? 0 } : {}) },
      });
    }
    await appendAudit(client, events, ctx.now);
    return view(rows[0] as UserRow);
  });
}

export interface DemoCredentials {
  email: string;
  password: string;
  role: Role;
}

/** One demo account per role, plus a second supervisor so four-eyes approval can be shown. */
export const DEMO_ACCOUNTS: readonly DemoCredentials[] = [
  { email: "analyst@demo.redrive.local", password: "demo-analyst-pass", role: "analyst" },
  { email: "supervisor@demo.redrive.local", password: "demo-supervisor-pass", role: "supervisor" },
  { email: "supervisor2@demo.redrive.local", password: "demo-supervisor2-pass", role: "supervisor" },
  { email: "auditor@demo.redrive.local", password: "demo-auditor-pass", role: "auditor" },
  { email: "admin@demo.redrive.local", password: "demo-admin-pass", role: "admin" },
  { email: "producer@demo.redrive.local", password: "demo-producer-pass", role: "producer" },
];

/**
 * Creates the demo accounts (demo=true: refused at sign-in in production unless REDRIVE_DEMO=1). Idempotent:
 * existing demo accounts get their role and password back; a non-demo account that happens to use one of the
 * e-mails is left alone and left out of the result.
 */
export async function seedDemoAccounts(db: Db): Promise<DemoCredentials[]> {
  const ctx: AuditContext = { actor: { id: null, email: "demo-seed", role: "system" }, now: new Date() };
  const ready: DemoCredentials[] = [];
  for (const account of DEMO_ACCOUNTS) {
    const { rows } = await db.pool.query<{ id: string; role: string; demo: boolean; password: string | null }>(
      `SELECT u.id, u.role::text AS role, u.demo, a.password
         FROM "user" u LEFT JOIN account a ON a.user_id = u.id AND a.provider_id = 'credential' AND a.account_id = u.id
        WHERE u.email = $1`,
      [account.email],
    );
    const existing = rows[0];
    if (!existing) {
      await createUser(db.pool, { email: account.email, role: account.role, password: account.password, demo: true }, ctx);
    } else {
      if (!existing.demo) continue;
      if (existing.role !== account.role) await updateUser(db.pool, existing.id, { role: account.role }, ctx);
      if (!existing.password || !(await verifyPassword(account.password, existing.password))) {
        await setPassword(db.pool, existing.id, account.password, ctx);
      }
    }
    ready.push({ ...account });
  }
  return ready;
}
