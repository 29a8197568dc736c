import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, getDb, type Db } from "../../lib/db/client";
import { authRequest, cookieFrom, makeToken, makeUser, PASSWORD, randomIp, signIn, TEST_CTX, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";
import { UNSCOPED } from "../../lib/scope/record-scope";

setTestAuthEnv();

const { authenticate } = await import("../../lib/auth/principal");
const { authenticateToken, revokeApiToken } = await import("../../lib/auth/tokens");
const { updateUser, setPassword } = await import("../../lib/auth/users");

let db: Db;

beforeAll(async () => {
  db = await testDb({ truncate: ["user"] });
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

const req = (headers: Record<string, string>) => new Request("http://localhost:3000/api/anything", { headers });

async function lastAudit(action: string) {
  const { rows } = await db.pool.query(`SELECT * FROM audit_event WHERE action = $1 ORDER BY id DESC LIMIT 1`, [action]);
  return rows[0];
}

describe("sign-in with e-mail and password (better-auth)", () => {
  it("sets an httpOnly SameSite=Lax session cookie valid for 8 hours and audits the sign-in", async () => {
    const user = await makeUser(db, "supervisor");
    const { res, cookie } = await signIn(user.email.toUpperCase());
    expect(res.status).toBe(200);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith("redrive.session_token="));
    expect(setCookie).toBeDefined();
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Max-Age=28800/);

    const principal = await authenticate(req({ cookie }));
    expect(principal).toEqual({ userId: user.id, email: user.email, name: user.name, role: "supervisor", via: "session", scope: UNSCOPED });

    const event = await lastAudit("auth.sign_in");
    expect(event).toMatchObject({ actor_id: user.id, actor_email: user.email, actor_role: "supervisor", target_id: user.id });
    const { rows } = await db.pool.query(`SELECT expires_at FROM session WHERE user_id = $1`, [user.id]);
    const hours = (rows[0].expires_at.getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(7.9);
    expect(hours).toBeLessThanOrEqual(8);
  });

  it("slides: a session used after the refresh interval is extended to 8 hours from then", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    // As if signed in an hour ago: 7 hours left.
    await db.pool.query(
      `UPDATE session SET expires_at = now() + interval '7 hours', updated_at = now() - interval '1 hour' WHERE user_id = $1`,
      [user.id],
    );
    expect(await authenticate(req({ cookie }))).not.toBeNull();
    const { rows } = await db.pool.query(`SELECT expires_at FROM session WHERE user_id = $1`, [user.id]);
    expect((rows[0].expires_at.getTime() - Date.now()) / 3_600_000).toBeGreaterThan(7.9);
  });

  it("refuses an expired session", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    await db.pool.query(`UPDATE session SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.id]);
    expect(await authenticate(req({ cookie }))).toBeNull();
  });

  it("refuses a wrong password and audits the failure with the e-mail that was tried", async () => {
    const user = await makeUser(db, "analyst");
    const { res, cookie } = await signIn(user.email, "not-the-password");
    expect(res.status).toBe(401);
    expect(cookie).toBe("");
    const event = await lastAudit("auth.sign_in_failed");
    expect(event).toMatchObject({ actor_id: null, actor_email: user.email, reason: "INVALID_EMAIL_OR_PASSWORD" });
  });

  it("refuses an e-mail or password holding NUL or an unpaired surrogate (400 naming the field) and audits the attempt", async () => {
    const user = await makeUser(db, "analyst");
    const cases = [
      { email: `a\u0000b@test.local`, password: PASSWORD, path: "email", audited: "a\\u0000b@test.local" },
      { email: `c\ud800d@test.local`, password: PASSWORD, path: "email", audited: "c\\ud800d@test.local" },
      { email: user.email, password: `${PASSWORD}\u0000`, path: "password", audited: user.email },
      { email: user.email, password: `\udfff${PASSWORD}`, path: "password", audited: user.email },
    ];
    for (const c of cases) {
      const { res, cookie } = await signIn(c.email, c.password);
      expect(res.status, JSON.stringify(c)).toBe(400);
      expect(cookie).toBe("");
      expect(res.headers.get("content-type")).toMatch(/json/);
      const body = (await res.json()) as { error: { code: string; message: string; issues: { path: string }[] } };
      expect(body.error).toMatchObject({ code: "bad_request", issues: [{ path: c.path }] });
      expect(body.error.message).toMatch(new RegExp(`^${c.path}: `));
      expect(await lastAudit("auth.sign_in_failed")).toMatchObject({ actor_id: null, actor_email: c.audited, reason: "INVALID_INPUT" });
    }
  });

  it("refuses text PostgreSQL cannot store on every path, not only sign-in: a session token to revoke, a query (400 naming it)", async () => {
    const { cookie } = await signIn((await makeUser(db, "analyst")).email);
    for (const [path, init, field] of [
      ["/revoke-session", { cookie, body: { token: "a\u0000b" } }, "token"],
      ["/revoke-session", { cookie, body: { token: "a\ud800b" } }, "token"],
      ["/get-session?x=a%00b", { cookie, method: "GET" }, "query.x"],
    ] as const) {
      const res = await authRequest(path, init);
      expect(res.status, `${path} ${JSON.stringify(init)}`).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "bad_request", issues: [{ path: field }] } });
    }
    // the session is still there: nothing was revoked
    expect(await authenticate(req({ cookie }))).not.toBeNull();
  });

  it("has no sign-up", async () => {
    const res = await authRequest("/sign-up/email", { body: { email: "new@test.local", password: "long-enough-password", name: "x" } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const { rows } = await db.pool.query(`SELECT 1 FROM "user" WHERE email = 'new@test.local'`);
    expect(rows).toHaveLength(0);
  });

  it("refuses a disabled account at sign-in (after the password check) and ends its sessions when disabled", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    expect(await authenticate(req({ cookie }))).not.toBeNull();

    await updateUser(db.pool, user.id, { disabled: true }, TEST_CTX());
    expect(await authenticate(req({ cookie }))).toBeNull();

    const again = await signIn(user.email);
    expect(again.res.status).toBe(403);
    expect(await again.res.json()).toMatchObject({ code: "ACCOUNT_DISABLED" });
    expect(await lastAudit("auth.sign_in_failed")).toMatchObject({ actor_email: user.email, reason: "ACCOUNT_DISABLED" });

    const wrong = await signIn(user.email, "wrong-password-here");
    expect(wrong.res.status).toBe(401); // a wrong password does not learn that the account is disabled
  });

  it("refuses a session whose user was disabled directly in the database", async () => {
    const user = await makeUser(db, "auditor");
    const { cookie } = await signIn(user.email);
    await db.pool.query(`UPDATE "user" SET disabled = true WHERE id = $1`, [user.id]);
    expect(await authenticate(req({ cookie }))).toBeNull();
  });

  it("signs out: the session is deleted and the cookie no longer authenticates", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    const out = await authRequest("/sign-out", { cookie, body: {} });
    expect(out.status).toBe(200);
    expect(await authenticate(req({ cookie }))).toBeNull();
    const { rows } = await db.pool.query(`SELECT 1 FROM session WHERE user_id = $1`, [user.id]);
    expect(rows).toHaveLength(0);
  });

  it("audits every end of a session: sign-out, one session revoked, all, and all but this one", async () => {
    const user = await makeUser(db, "analyst");
    const a = await signIn(user.email);
    const b = await signIn(user.email);
    const c = await signIn(user.email);
    // list-sessions is the user's own list (documented); revoking another by its token is audited.
    const list = await authRequest("/list-sessions", { cookie: a.cookie, method: "GET" });
    expect(list.status).toBe(200);
    const sessions = (await list.json()) as { token: string }[];
    expect(sessions).toHaveLength(3);
    const token = decodeURIComponent(/redrive\.session_token=([^.;]+)/.exec(c.cookie)![1]!);
    expect((await authRequest("/revoke-session", { cookie: a.cookie, body: { token } })).status).toBe(200);
    expect(await authenticate(req({ cookie: c.cookie }))).toBeNull();
    expect(await lastAudit("auth.session_revoked")).toMatchObject({ actor_id: user.id, target_id: user.id, after: { revokedOne: true } });

    expect((await authRequest("/revoke-other-sessions", { cookie: a.cookie, body: {} })).status).toBe(200);
    expect(await authenticate(req({ cookie: b.cookie }))).toBeNull();
    expect(await authenticate(req({ cookie: a.cookie }))).toMatchObject({ userId: user.id });
    expect(await lastAudit("auth.other_sessions_revoked")).toMatchObject({ actor_id: user.id, target_id: user.id });

    const d = await signIn(user.email);
    expect((await authRequest("/revoke-sessions", { cookie: d.cookie, body: {} })).status).toBe(200);
    expect(await authenticate(req({ cookie: a.cookie }))).toBeNull();
    expect(await lastAudit("auth.sessions_revoked")).toMatchObject({ actor_id: user.id, target_id: user.id });

    const e = await signIn(user.email);
    expect((await authRequest("/sign-out", { cookie: e.cookie, body: {} })).status).toBe(200);
    expect(await lastAudit("auth.sign_out")).toMatchObject({ actor_id: user.id, target_id: user.id });
  });

  it("answers 404 for better-auth endpoints Redrive does not use", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    for (const [path, method] of [
      ["/list-accounts", "GET"],
      ["/account-info", "GET"],
      ["/update-session", "POST"],
      ["/verify-password", "POST"],
      ["/sign-in/social", "POST"],
    ] as const) {
      const res = await authRequest(path, { cookie, method, ...(method === "POST" ? { body: {} } : {}) });
      expect(res.status, path).toBe(404);
    }
  });

  it("a password set by an admin replaces the old one and ends existing sessions", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    await setPassword(db.pool, user.id, "a-brand-new-password", TEST_CTX());
    expect(await authenticate(req({ cookie }))).toBeNull();
    expect((await signIn(user.email, PASSWORD)).res.status).toBe(401);
    expect((await signIn(user.email, "a-brand-new-password")).res.status).toBe(200);
    expect(await lastAudit("user.password_set")).toMatchObject({
      target_id: user.id,
      after: { sessionsRevoked: 1, passwordGenerated: false },
    });
  });

  it("lets a signed-in user change their own password (audited, other sessions ended)", async () => {
    const user = await makeUser(db, "auditor");
    const other = await signIn(user.email);
    const { cookie } = await signIn(user.email);
    const res = await authRequest("/change-password", {
      cookie,
      body: { currentPassword: PASSWORD, newPassword: "my-own-new-password", revokeOtherSessions: true },
    });
    expect(res.status).toBe(200);
    expect(await authenticate(req({ cookie: other.cookie }))).toBeNull();
    expect(await authenticate(req({ cookie: cookieFrom(res) }))).toMatchObject({ userId: user.id });
    expect(await lastAudit("user.password_changed")).toMatchObject({ actor_id: user.id, target_id: user.id });
    expect((await signIn(user.email, "my-own-new-password")).res.status).toBe(200);
  });

  it("rate-limits sign-in attempts: REDRIVE_SIGNIN_ATTEMPTS_PER_MINUTE (default 20) per minute per client address", async () => {
    const { getEnv } = await import("../../lib/env");
    const max = getEnv().REDRIVE_SIGNIN_ATTEMPTS_PER_MINUTE;
    expect(max).toBe(20);
    const user = await makeUser(db, "analyst");
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i <= max; i++) statuses.push((await signIn(user.email, "wrong-password-here", ip)).res.status);
    expect(statuses).toEqual([...Array.from({ length: max }, () => 401), 429]);
    // Audited once per address per minute, however many more attempts are refused.
    for (let i = 0; i < 3; i++) expect((await signIn(user.email, "wrong-password-here", ip)).res.status).toBe(429);
    const throttled = await db.pool.query(
      `SELECT reason, after FROM audit_event WHERE action = 'auth.sign_in_throttled' AND after->>'ip' = $1`,
      [ip],
    );
    expect(throttled.rows).toEqual([{ reason: "too many sign-in attempts from this address", after: { ip, limitPerMinute: max } }]);
    expect((await signIn(user.email, PASSWORD, randomIp())).res.status).toBe(200);
    // Counted in the database, where every server on it counts too (tests/integration/rate-limit-store.test.ts).
    const counted = await db.pool.query<{ count: number }>(`SELECT count FROM auth_rate_limit WHERE key LIKE $1`, [`${ip}%sign-in/email`]);
    expect(counted.rows).toEqual([{ count: max + 4 }]);
  });

  it("refuses a cross-site sign-out (Origin check)", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    const { getAuth } = await import("../../lib/auth/auth");
    const res = await getAuth().handler(
      new Request("http://localhost:3000/api/auth/sign-out", {
        method: "POST",
        headers: { origin: "https://evil.example", cookie, "content-type": "application/json", "x-forwarded-for": randomIp() },
        body: "{}",
      }),
    );
    expect(res.status).toBe(403);
    expect(await authenticate(req({ cookie }))).not.toBeNull();
  });

  it("trusts the origin the browser addressed, whatever the host and port (e2e uses 127.0.0.1 on another port)", async () => {
    const user = await makeUser(db, "analyst");
    const { getAuth } = await import("../../lib/auth/auth");
    // `next start` builds request.url from its own hostname; the Host header is what the browser used.
    const attempt = (origin: string) =>
      getAuth().handler(
        new Request("http://localhost:3999/api/auth/sign-in/email", {
          method: "POST",
          headers: { host: "127.0.0.1:3999", origin, "content-type": "application/json", "x-forwarded-for": randomIp() },
          body: JSON.stringify({ email: user.email, password: PASSWORD }),
        }),
      );
    const ok = await attempt("http://127.0.0.1:3999");
    expect(ok.status).toBe(200);
    expect(cookieFrom(ok)).toContain("redrive.session_token=");
    const crossSite = await attempt("https://evil.example");
    expect(crossSite.status).toBe(403); // login CSRF: a foreign page cannot sign the browser in
    expect(cookieFrom(crossSite)).toBe("");
  });
});

describe("authenticate with an API token", () => {
  it("accepts a valid token and says so in the principal", async () => {
    const user = await makeUser(db, "producer");
    const token = await makeToken(db, user.id);
    const p = await authenticate(req({ authorization: `Bearer ${token}` }));
    expect(p).toMatchObject({ userId: user.id, email: user.email, role: "producer", via: "token" });
    expect(p?.tokenId).toEqual(expect.any(String));
  });

  it("refuses a revoked token", async () => {
    const user = await makeUser(db, "analyst");
    const token = await makeToken(db, user.id);
    const p = await authenticate(req({ authorization: `Bearer ${token}` }));
    await revokeApiToken(db.pool, { id: p!.tokenId!, ownerId: user.id }, TEST_CTX());
    expect(await authenticate(req({ authorization: `Bearer ${token}` }))).toBeNull();
  });

  it("refuses the token of a disabled user", async () => {
    const user = await makeUser(db, "supervisor");
    const token = await makeToken(db, user.id);
    await updateUser(db.pool, user.id, { disabled: true }, TEST_CTX());
    expect(await authenticate(req({ authorization: `Bearer ${token}` }))).toBeNull();
    await updateUser(db.pool, user.id, { disabled: false }, TEST_CTX());
    expect(await authenticate(req({ authorization: `Bearer ${token}` }))).not.toBeNull();
  });

  it("refuses unknown and malformed tokens, and does not fall back to the cookie when a bearer token is sent", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    expect(await authenticate(req({ authorization: `Bearer rdv_${"A".repeat(43)}` }))).toBeNull();
    expect(await authenticate(req({ authorization: "Bearer nonsense", cookie }))).toBeNull();
    expect(await authenticate(req({}))).toBeNull();
  });

  it("records last use at most once a minute", async () => {
    const user = await makeUser(db, "analyst");
    const token = await makeToken(db, user.id);
    const t0 = new Date("2030-01-01T00:00:00.000Z");
    const lastUsed = async () =>
      (await db.pool.query(`SELECT last_used_at FROM api_token WHERE user_id = $1`, [user.id])).rows[0].last_used_at.toISOString();
    await authenticateToken(getDb().pool, token, t0);
    expect(await lastUsed()).toBe(t0.toISOString());
    await authenticateToken(getDb().pool, token, new Date(t0.getTime() + 30_000));
    expect(await lastUsed()).toBe(t0.toISOString());
    const t2 = new Date(t0.getTime() + 61_000);
    await authenticateToken(getDb().pool, token, t2);
    expect(await lastUsed()).toBe(t2.toISOString());
  });
});
