import { randomUUID } from "node:crypto";
import type { Db } from "../../lib/db/client";
import type { AuditContext } from "../../lib/auth/audit-context";
import type { Role } from "../../lib/auth/permissions";

// Accounts, tokens and signed-in sessions for integration tests. Call setTestAuthEnv() at the top of a test
// file, before anything reads the environment (lib/env.ts caches it), so no secret file (auth secret, audit key) is written to .data.

export function setTestAuthEnv(): void {
  process.env.BETTER_AUTH_SECRET ??= "test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
  process.env.REDRIVE_AUDIT_KEY ??= "test-audit-key-0123456789abcdefghijklmnopqrstuvwxyz";
}

export const TEST_CTX = (): AuditContext => ({ actor: { id: null, email: "test", role: "system" }, now: new Date(), requestId: "test" });

export const PASSWORD = "correct-horse-battery";

export async function makeUser(db: Db, role: Role, opts: { demo?: boolean; email?: string } = {}) {
  const { createUser } = await import("../../lib/auth/users");
  const email = opts.email ?? `${role}-${randomUUID().slice(0, 8)}@test.local`;
  const { user } = await createUser(db.pool, { email, role, password: PASSWORD, demo: opts.demo ?? false }, TEST_CTX());
  return user;
}

export async function makeToken(db: Db, userId: string, name = "test"): Promise<string> {
  const { createApiToken } = await import("../../lib/auth/tokens");
  return (await createApiToken(db.pool, { userId, name }, TEST_CTX())).token;
}

const ORIGIN = "http://localhost:3000";

/** Calls better-auth's handler the way the browser would through app/api/auth/[...all]. */
export async function authRequest(
  path: string,
  init: { body?: unknown; cookie?: string; ip?: string; method?: string } = {},
): Promise<Response> {
  const { handleAuthRequest } = await import("../../lib/auth/auth");
  const headers: Record<string, string> = { origin: ORIGIN, "x-forwarded-for": init.ip ?? randomIp() };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.cookie) headers.cookie = init.cookie;
  return handleAuthRequest(
    new Request(`${ORIGIN}/api/auth${path}`, {
      method: init.method ?? "POST",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    new Date(),
  );
}

/** The Cookie header a browser would send back after this response. */
export function cookieFrom(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .filter((c) => c && !c.endsWith("="))
    .join("; ");
}

export async function signIn(email: string, password = PASSWORD, ip?: string): Promise<{ res: Response; cookie: string }> {
  const res = await authRequest("/sign-in/email", { body: { email, password }, ip });
  return { res, cookie: cookieFrom(res) };
}

/** A distinct client address per call, so the sign-in rate limit (per IP) does not couple tests. */
export function randomIp(): string {
  const b = () => Math.floor(Math.random() * 254) + 1;
  return `10.${b()}.${b()}.${b()}`;
}
