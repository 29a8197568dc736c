import "server-only";
import type { Actor } from "../audit/actor";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import { accountRefusal } from "./account-policy";
import { getAuth } from "./auth";
import { isRole, type Role } from "./permissions";
import { bearerToken } from "./token-format";
import { authenticateToken } from "./tokens";
import type { RecordScope } from "../scope/record-scope";
import { readRecordScope } from "./teams/read-scope";

// Who is calling: an API token (Authorization: Bearer rdv_…) or a better-auth session cookie. Role,
// disabled and demo are read from the database on every request, so a change takes effect at once.

export interface Principal {
  userId: string;
  email: string;
  name: string;
  role: Role;
  via: "session" | "token";
  tokenId?: string;
  /** which records this principal sees and changes (its teams'), read with the role on every request */
  scope: RecordScope;
}

/** For route handlers (through defineRoute). Bearer credentials, when sent, are the only ones considered. */
export async function authenticate(req: Request): Promise<Principal | null> {
  return authenticateHeaders(req.headers);
}

export async function authenticateHeaders(headers: Headers): Promise<Principal | null> {
  const principal = await authenticateUnscoped(headers);
  if (!principal) return null;
  return { ...principal, scope: await readRecordScope(getDb().pool, principal.userId) };
}

async function authenticateUnscoped(headers: Headers): Promise<Omit<Principal, "scope"> | null> {
  const token = bearerToken(headers.get("authorization"));
  if (token === null) return null; // "Bearer" with a malformed token: refuse rather than fall back to a cookie
  if (token !== undefined) return authenticateToken(getDb().pool, token, new Date());
  if (!headers.has("cookie")) return null;
  return sessionPrincipal(headers);
}

async function sessionPrincipal(headers: Headers): Promise<Omit<Principal, "scope"> | null> {
  const result = await getAuth().api.getSession({ headers });
  if (!result) return null;
  const { user } = result;
  if (!isRole(user.role)) return null;
  if (accountRefusal({ disabled: user.disabled === true, demo: user.demo === true }, getEnv())) return null;
  return { userId: user.id, email: user.email, name: user.name, role: user.role, via: "session" };
}

/** The audit trail's actor for a principal. */
export function actorOf(principal: Principal): Actor {
  return { id: principal.userId, email: principal.email, role: principal.role };
}
