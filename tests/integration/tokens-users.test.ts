import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import type { CreatedToken, CreatedUser, TokenView, UserView } from "../../lib/auth/account-schemas";
import { makeToken, makeUser, signIn, TEST_CTX, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

setTestAuthEnv();

const tokens = await import("../../app/api/tokens/route");
const tokenById = await import("../../app/api/tokens/[id]/route");
const users = await import("../../app/api/users/route");
const userById = await import("../../app/api/users/[id]/route");
const { authenticate } = await import("../../lib/auth/principal");
const { updateUser, seedDemoAccounts, DEMO_ACCOUNTS } = await import("../../lib/auth/users");

let db: Db;

beforeAll(async () => {
  db = await testDb({ truncate: ["user"] });
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

async function call(
  handler: Handler,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; params?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await handler(
    new Request(`http://localhost/api${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

async function auditFor(targetId: string) {
  const { rows } = await db.pool.query(`SELECT * FROM audit_event WHERE target_id = $1 ORDER BY id`, [targetId]);
  return rows;
}

describe("API tokens through /api/tokens", () => {
  it("creates a token shown once, lists it without the secret, and revokes it; both audited", async () => {
    const user = await makeUser(db, "analyst");
    const session = await makeToken(db, user.id, "bootstrap");
    const { cookie } = await signIn(user.email);

    const created = await call(tokens.POST, "POST", "/tokens", {
      body: { name: "  nightly export " },
      headers: { cookie, origin: "http://localhost", host: "localhost", "x-request-id": "req-42" },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const c = created.body as CreatedToken;
    expect(c).toMatchObject({ name: "nightly export", prefix: c.token.slice(0, 10) });
    expect(c.token).toMatch(/^rdv_[A-Za-z0-9_-]{43}$/);
    expect(await authenticate(new Request("http://localhost/", { headers: { authorization: `Bearer ${c.token}` } }))).toMatchObject({
      userId: user.id,
      via: "token",
    });

    const listed = await call(tokens.GET, "GET", "/tokens", { token: session });
    expect(listed.status).toBe(200);
    const list = listed.body.tokens as TokenView[];
    expect(list.map((t) => t.name).sort()).toEqual(["bootstrap", "nightly export"]);
    expect(JSON.stringify(listed.body)).not.toContain(c.token);
    expect(JSON.stringify(listed.body)).not.toMatch(/hash/i);

    const revoked = await call(tokenById.DELETE, "DELETE", `/tokens/${c.id}`, { token: session, params: { id: c.id } });
    expect(revoked.status).toBe(200);
    expect(revoked.body.token.revokedAt).toEqual(expect.any(String));
    expect(await authenticate(new Request("http://localhost/", { headers: { authorization: `Bearer ${c.token}` } }))).toBeNull();

    const events = await auditFor(c.id);
    expect(events.map((e) => e.action)).toEqual(["token.created", "token.revoked"]);
    expect(events[0]).toMatchObject({ actor_id: user.id, actor_email: user.email, actor_role: "analyst", request_id: "req-42" });
    expect(JSON.stringify(events)).not.toContain(c.token);

    const again = await call(tokenById.DELETE, "DELETE", `/tokens/${c.id}`, { token: session, params: { id: c.id } });
    expect(again.status).toBe(200);
    expect((await auditFor(c.id)).length).toBe(2); // revoking twice records nothing new
  });

  it("rejects a token without a name", async () => {
    const user = await makeUser(db, "producer");
    const { cookie } = await signIn(user.email);
    const res = await call(tokens.POST, "POST", "/tokens", {
      body: { name: " " },
      headers: { cookie, origin: "http://localhost", host: "localhost" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.issues[0].path).toBe("name");
  });

  it("is not created with another token: a leaked token could otherwise outlive its revocation through its children", async () => {
    const user = await makeUser(db, "producer");
    const t = await makeToken(db, user.id);
    const res = await call(tokens.POST, "POST", "/tokens", { token: t, body: { name: "child" } });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain("signed in");
    expect((await db.pool.query("SELECT count(*)::int AS n FROM api_token WHERE user_id = $1", [user.id])).rows[0].n).toBe(1);
  });

  it("someone else's token is not found; an admin may revoke anyone's", async () => {
    const owner = await makeUser(db, "producer");
    const other = await makeUser(db, "supervisor");
    const admin = await makeUser(db, "admin");
    const ownerToken = await makeToken(db, owner.id);
    const ownerTokenId = (await authenticate(new Request("http://x/", { headers: { authorization: `Bearer ${ownerToken}` } })))!.tokenId!;

    // An admin finds it among every user's tokens (with the owner); anyone else asking for all gets 403.
    const adminToken = await makeToken(db, admin.id);
    const all = await call(tokens.GET, "GET", "/tokens?all=1", { token: adminToken });
    expect(all.status).toBe(200);
    expect((all.body as { tokens: TokenView[] }).tokens.find((t) => t.id === ownerTokenId)).toMatchObject({
      userId: owner.id,
      userEmail: owner.email,
    });
    const notAdmin = await call(tokens.GET, "GET", "/tokens?all=1", { token: ownerToken });
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body).toMatchObject({ error: { code: "forbidden", permission: "tokens:manage" } });
    expect((await call(tokens.GET, "GET", "/tokens", { token: ownerToken })).body.tokens.map((t: TokenView) => t.id)).toEqual([
      ownerTokenId,
    ]);

    const byOther = await call(tokenById.DELETE, "DELETE", `/tokens/${ownerTokenId}`, {
      token: await makeToken(db, other.id),
      params: { id: ownerTokenId },
    });
    expect(byOther.status).toBe(404);
    expect(await authenticate(new Request("http://x/", { headers: { authorization: `Bearer ${ownerToken}` } }))).not.toBeNull();

    const byAdmin = await call(tokenById.DELETE, "DELETE", `/tokens/${ownerTokenId}`, { token: adminToken, params: { id: ownerTokenId } });
    expect(byAdmin.status).toBe(200);
    const events = await auditFor(ownerTokenId);
    expect(events.at(-1)).toMatchObject({ action: "token.revoked", actor_id: admin.id, actor_role: "admin" });
  });

  it("a session-authenticated mutation from another origin is refused (defineRoute's CSRF check)", async () => {
    const user = await makeUser(db, "analyst");
    const { cookie } = await signIn(user.email);
    const res = await call(tokens.POST, "POST", "/tokens", {
      body: { name: "x" },
      headers: { cookie, origin: "https://evil.example", host: "localhost" },
    });
    expect(res.status).toBe(403);
    const ok = await call(tokens.POST, "POST", "/tokens", {
      body: { name: "x" },
      headers: { cookie, origin: "http://localhost", host: "localhost" },
    });
    expect(ok.status).toBe(201);
  });
});

describe("users through /api/users (admins)", () => {
  it("creates a user with a generated password that works for sign-in, audited", async () => {
    const admin = await makeUser(db, "admin");
    const t = await makeToken(db, admin.id);
    const res = await call(users.POST, "POST", "/users", { token: t, body: { email: " New.Person@Test.Local ", role: "auditor" } });
    expect(res.status).toBe(201);
    const created = res.body as CreatedUser;
    expect(created.user).toMatchObject({
      email: "new.person@test.local",
      name: "new.person",
      role: "auditor",
      disabled: false,
      demo: false,
    });
    expect(created.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await signIn(created.user.email, created.password)).res.status).toBe(200);
    const events = await auditFor(created.user.id);
    expect(events[0]).toMatchObject({
      action: "user.created",
      actor_id: admin.id,
      after: { email: "new.person@test.local", role: "auditor" },
    });
    expect(JSON.stringify(events)).not.toContain(created.password!);

    const dup = await call(users.POST, "POST", "/users", { token: t, body: { email: "new.person@test.local", role: "analyst" } });
    expect(dup.status).toBe(409);
    const weak = await call(users.POST, "POST", "/users", {
      token: t,
      body: { email: "weak@test.local", role: "analyst", password: "short" },
    });
    expect(weak.status).toBe(422);
    expect(weak.body.error.issues[0].path).toBe("password");
  });

  it("lists users without password hashes", async () => {
    const admin = await makeUser(db, "admin");
    const res = await call(users.GET, "GET", "/users", { token: await makeToken(db, admin.id) });
    expect(res.status).toBe(200);
    expect((res.body.users as UserView[]).some((u) => u.id === admin.id)).toBe(true);
    expect(JSON.stringify(res.body)).not.toMatch(/scrypt|password/i);
  });

  it("changes a role with before/after in the audit trail; the change applies to the next request", async () => {
    const admin = await makeUser(db, "admin");
    const t = await makeToken(db, admin.id);
    const target = await makeUser(db, "analyst");
    const targetToken = await makeToken(db, target.id);
    const res = await call(userById.PATCH, "PATCH", `/users/${target.id}`, {
      token: t,
      params: { id: target.id },
      body: { role: "supervisor" },
    });
    expect(res.status).toBe(200);
    expect(res.body.user.role).toBe("supervisor");
    expect(await authenticate(new Request("http://x/", { headers: { authorization: `Bearer ${targetToken}` } }))).toMatchObject({
      role: "supervisor",
    });
    const events = await auditFor(target.id);
    expect(events.at(-1)).toMatchObject({
      action: "user.role_changed",
      actor_id: admin.id,
      before: { role: "analyst" },
      after: { role: "supervisor" },
    });

    const disabled = await call(userById.PATCH, "PATCH", `/users/${target.id}`, {
      token: t,
      params: { id: target.id },
      body: { disabled: true },
    });
    expect(disabled.body.user.disabled).toBe(true);
    expect((await auditFor(target.id)).at(-1)).toMatchObject({
      action: "user.disabled",
      before: { disabled: false },
      after: { disabled: true },
    });
    expect(await authenticate(new Request("http://x/", { headers: { authorization: `Bearer ${targetToken}` } }))).toBeNull();

    const empty = await call(userById.PATCH, "PATCH", `/users/${target.id}`, { token: t, params: { id: target.id }, body: {} });
    expect(empty.status).toBe(422);
    const missing = await call(userById.PATCH, "PATCH", "/users/nope", { token: t, params: { id: "nope" }, body: { role: "admin" } });
    expect(missing.status).toBe(404);
  });

  it("never leaves the instance without an enabled admin", async () => {
    await db.pool.query(`UPDATE "user" SET disabled = true WHERE role = 'admin'`);
    const last = await makeUser(db, "admin");
    const t = await makeToken(db, last.id);
    const res = await call(userById.PATCH, "PATCH", `/users/${last.id}`, { token: t, params: { id: last.id }, body: { role: "analyst" } });
    expect(res.status).toBe(409);
    await expect(updateUser(db.pool, last.id, { disabled: true }, TEST_CTX())).rejects.toMatchObject({ code: "conflict" });
    const second = await makeUser(db, "admin");
    const ok = await call(userById.PATCH, "PATCH", `/users/${last.id}`, {
      token: await makeToken(db, second.id),
      params: { id: last.id },
      body: { role: "analyst" },
    });
    expect(ok.status).toBe(200);
  });

  it("is for admins only: others get 403 naming the permission", async () => {
    const sup = await makeUser(db, "supervisor");
    const res = await call(users.GET, "GET", "/users", { token: await makeToken(db, sup.id) });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: "forbidden", permission: "users:manage" });
  });
});

describe("demo accounts", () => {
  it("seeds one demo user per role plus a second supervisor, idempotently, and they can sign in outside production", async () => {
    const first = await seedDemoAccounts(db);
    expect(first.map((a) => a.role).sort()).toEqual(["admin", "analyst", "auditor", "producer", "supervisor", "supervisor"]);
    const count = async () =>
      (await db.pool.query(`SELECT count(*)::int AS n FROM audit_event WHERE actor_email = 'demo-seed'`)).rows[0].n as number;
    const eventsAfterFirst = await count();

    // An admin demoted a demo account in the meantime: seeding again restores it and changes nothing else.
    const analyst = DEMO_ACCOUNTS.find((a) => a.role === "analyst")!;
    await db.pool.query(`UPDATE "user" SET role = 'auditor' WHERE email = $1`, [analyst.email]);
    expect(await seedDemoAccounts(db)).toEqual(first);
    expect(await count()).toBe(eventsAfterFirst + 1);
    const { rows } = await db.pool.query(
      `SELECT email, role::text AS role, demo FROM "user" WHERE email LIKE '%@demo.redrive.local' ORDER BY email`,
    );
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.demo === true)).toBe(true);

    for (const a of first) expect((await signIn(a.email, a.password)).res.status, a.email).toBe(200);
  });
});
