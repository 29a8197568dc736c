import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, type Db } from "../../lib/db/client";
import { startOidcProvider, type TestOidcProvider } from "../support/oidc-provider";
import { authRequest, cookieFrom, makeUser, PASSWORD, signIn, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Single sign-on against a real OpenID provider (oidc-provider on a loopback port): the browser's part of the
// authorization code flow is played here with fetch, so each step can be tampered with.

const ORIGIN = "http://localhost:3000";
const idp: TestOidcProvider = await startOidcProvider({ redirectOrigins: [ORIGIN] });

setTestAuthEnv();
// The public URL: the provider sends the browser back to it after logout.
process.env.BETTER_AUTH_URL = ORIGIN;
process.env.REDRIVE_OIDC_ISSUER = idp.issuer;
process.env.REDRIVE_OIDC_CLIENT_ID = idp.clientId;
process.env.REDRIVE_OIDC_CLIENT_SECRET = idp.clientSecret;
process.env.REDRIVE_OIDC_NAME = "Corp IdP";
process.env.REDRIVE_OIDC_ROLE_MAP = "redrive-admins=admin,redrive-supervisors=supervisor,ops=supervisor,readers=analyst";
process.env.REDRIVE_OIDC_TEAM_MAP = "ops=Ops Team,readers=Readers Team";

const { authenticate } = await import("../../lib/auth/principal");
const { forgetSsoSettings } = await import("../../lib/auth/sso-config");

let db: Db;

beforeAll(async () => {
  db = await testDb({ truncate: ["user"] });
  forgetSsoSettings();
});

afterAll(async () => {
  await idp.close();
  await db.pool.end();
  await closeDb();
});

/** The provider's side of the browser: its own cookie jar, redirects followed until one leaves the provider. */
class IdpBrowser {
  private jar = new Map<string, string>();

  private async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
    const res = await fetch(url, {
      method: init.method ?? "GET",
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      redirect: "manual",
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      this.jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }

  /** Follows the provider's redirects, filling its login form as `login`; returns the first URL outside it. */
  async authorize(url: string, login: string): Promise<string> {
    let res = await this.request(url);
    for (let hop = 0; hop < 10; hop++) {
      const location = res.headers.get("location");
      if (location) {
        const next = new URL(location, url).href;
        if (!next.startsWith(idp.issuer)) return next;
        url = next;
        res = await this.request(url);
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`no form at ${url} (${res.status}): ${html.slice(0, 300)}`);
      const form: Record<string, string> = /name="login"/.test(html) ? { prompt: "login", login, password: "any" } : { prompt: "consent" };
      url = new URL(action.replace(/&amp;/g, "&"), url).href;
      res = await this.request(url, { method: "POST", form });
    }
    throw new Error("too many redirects at the provider");
  }

  async get(url: string): Promise<Response> {
    return this.request(url);
  }
}

async function startSignIn(): Promise<{ url: string; stateCookie: string }> {
  const res = await authRequest("/sign-in/social", {
    body: { provider: "oidc", callbackURL: "/dead-letters", errorCallbackURL: "/sign-in" },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { url: string };
  return { url: body.url, stateCookie: cookieFrom(res) };
}

async function callback(url: string, cookie: string): Promise<{ location: string; cookie: string }> {
  const { handleAuthRequest } = await import("../../lib/auth/auth");
  const res = await handleAuthRequest(new Request(url, { headers: { cookie, "x-forwarded-for": "10.9.9.9" } }), new Date());
  expect([302, 303, 307]).toContain(res.status);
  return { location: res.headers.get("location") ?? "", cookie: cookieFrom(res) };
}

/** A whole sign-in as `login`; `tamper` changes the authorization request or the provider's answer on the way. */
async function ssoSignIn(
  login: string,
  tamper: { authorize?: (u: URL) => void; callback?: (u: URL) => void } = {},
): Promise<{ location: string; cookie: string; browser: IdpBrowser }> {
  const { url, stateCookie } = await startSignIn();
  const authorize = new URL(url);
  tamper.authorize?.(authorize);
  const browser = new IdpBrowser();
  const back = new URL(await browser.authorize(authorize.href, login));
  tamper.callback?.(back);
  const done = await callback(back.href, stateCookie);
  return { ...done, browser };
}

const principalOf = (cookie: string) => authenticate(new Request(`${ORIGIN}/api/x`, { headers: { cookie } }));

async function audits(action: string) {
  const { rows } = await db.pool.query(`SELECT * FROM audit_event WHERE action = $1 ORDER BY id`, [action]);
  return rows;
}

describe("OpenID Connect sign-in (oidc-provider)", () => {
  it("sends the browser to the provider with PKCE, state and nonce", async () => {
    const { url, stateCookie } = await startSignIn();
    const u = new URL(url);
    expect(u.origin + u.pathname).toBe(`${idp.issuer}/auth`);
    expect(u.searchParams.get("client_id")).toBe(idp.clientId);
    expect(u.searchParams.get("code_challenge_method")).toBe("S256");
    expect(u.searchParams.get("state")).toBeTruthy();
    expect(u.searchParams.get("nonce")).toBeTruthy();
    expect(u.searchParams.get("scope")?.split(" ")).toEqual(expect.arrayContaining(["openid", "email", "groups"]));
    expect(u.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/api/auth/callback/oidc`);
    expect(stateCookie).not.toBe("");
  });

  it("signs a person in with the role their group maps to, creating the account just in time (audited)", async () => {
    const { location, cookie } = await ssoSignIn("alice");
    expect(location).toBe("/dead-letters");
    const me = await principalOf(cookie);
    expect(me).toMatchObject({ email: "alice@corp.example", name: "Alice Lead", role: "supervisor", via: "session" });
    const { rows } = await db.pool.query(`SELECT provider_id, account_id, password FROM account WHERE user_id = $1`, [me!.userId]);
    expect(rows).toEqual([{ provider_id: "oidc", account_id: "alice", password: null }]);
    const created = (await audits("user.created")).find((e) => e.target_id === me!.userId);
    expect(created.after).toMatchObject({ via: "sso", role: "supervisor", subject: "alice", issuer: idp.issuer });
    const signedIn = (await audits("auth.sso_sign_in")).at(-1);
    expect(signedIn).toMatchObject({ actor_id: me!.userId, actor_role: "supervisor" });
    expect(signedIn.after.groups).toEqual(["redrive-supervisors", "everyone"]);
  });

  it("two people at the provider are two users (four eyes), and each sign-in finds the same one again", async () => {
    const alice = await principalOf((await ssoSignIn("alice")).cookie);
    const bob = await principalOf((await ssoSignIn("bob")).cookie);
    const aliceAgain = await principalOf((await ssoSignIn("alice")).cookie);
    expect(bob).toMatchObject({ role: "supervisor", email: "bob@corp.example" });
    expect(alice!.userId).not.toBe(bob!.userId);
    expect(aliceAgain!.userId).toBe(alice!.userId);
  });

  it("applies the provider's groups at every sign-in: a group removed there is a role removed here (audited)", async () => {
    const bob = idp.people.get("bob")!;
    bob.groups = ["redrive-admins", "ops"];
    expect(await principalOf((await ssoSignIn("bob")).cookie)).toMatchObject({ role: "admin" });
    bob.groups = ["readers"];
    const me = await principalOf((await ssoSignIn("bob")).cookie);
    expect(me).toMatchObject({ role: "analyst" });
    const change = (await audits("user.role_changed")).at(-1);
    expect(change).toMatchObject({ target_id: me!.userId, actor_email: "sso", actor_role: "system" });
    expect(change.before).toEqual({ role: "admin" });
    expect(change.after).toMatchObject({ role: "analyst", via: "sso", groups: ["readers"], matched: "readers" });
    bob.groups = ["ops", "everyone"];
  });

  it("places a person in the teams their groups map to at every sign-in, and takes them out again (audited)", async () => {
    const { createTeam } = await import("../../lib/auth/teams/teams");
    const ctx = { actor: { id: null, email: "test", role: "system" }, requestId: null, now: new Date() };
    const ops = await createTeam(db.pool, { name: "Ops Team", members: [], sources: [{ source: "ops-*" }] }, ctx);
    const bob = idp.people.get("bob")!;
    const groupsBefore = bob.groups;
    bob.groups = ["ops"];
    const inTeam = await principalOf((await ssoSignIn("bob")).cookie);
    expect(inTeam!.scope).toEqual({ all: false, teamIds: [ops.id], sources: [], prefixes: ["ops-"], origins: [] });
    const synced = (await audits("team.sso_synced")).at(-1);
    expect(synced).toMatchObject({ target_id: inTeam!.userId, actor_email: "sso" });
    expect(synced.before).toEqual({ teams: [] });
    expect(synced.after).toMatchObject({ teams: ["Ops Team"] });
    // "readers" maps to a team that does not exist: skipped; "ops" gone: out of Ops Team, so unscoped again.
    bob.groups = ["readers"];
    const out = await principalOf((await ssoSignIn("bob")).cookie);
    expect(out!.scope).toEqual({ all: true });
    expect((await audits("team.sso_synced")).at(-1).after).toMatchObject({ teams: [] });
    bob.groups = groupsBefore;
  });

  it("refuses a person none of whose groups is mapped, with a reason the sign-in page explains (audited)", async () => {
    const { location, cookie } = await ssoSignIn("carol");
    const to = new URL(location, ORIGIN);
    expect(to.pathname).toBe("/sign-in");
    expect(to.searchParams.get("error")).toBe("no_mapped_group");
    expect(await principalOf(cookie)).toBeNull();
    const { rows } = await db.pool.query(`SELECT 1 FROM "user" WHERE email = 'carol@corp.example'`);
    expect(rows).toHaveLength(0);
    const refused = (await audits("auth.sso_refused")).at(-1);
    expect(refused).toMatchObject({ actor_email: "carol@corp.example", reason: "no_mapped_group" });
    expect(refused.after).toMatchObject({ subject: "carol", groups: ["sales", "everyone"], claim: "groups" });
  });

  it("refuses a person whose groups were all removed, even with an account here, and ends their sessions", async () => {
    const alice = idp.people.get("alice")!;
    const earlier = (await ssoSignIn("alice")).cookie;
    expect(await principalOf(earlier)).not.toBeNull();
    alice.groups = ["everyone"];
    const { location, cookie } = await ssoSignIn("alice");
    expect(new URL(location, ORIGIN).searchParams.get("error")).toBe("no_mapped_group");
    expect(await principalOf(cookie)).toBeNull();
    expect(await principalOf(earlier)).toBeNull();
    const refused = (await audits("auth.sso_refused")).at(-1);
    expect(refused.after.subject).toBe("alice");
    expect(refused.after.sessionsRevoked).toBeGreaterThanOrEqual(1);
    alice.groups = ["redrive-supervisors", "everyone"];
  });

  it("refuses a tampered state", async () => {
    const { location, cookie } = await ssoSignIn("alice", { callback: (u) => u.searchParams.set("state", "forged-state-value") });
    expect(new URL(location, ORIGIN).pathname).toBe("/sign-in");
    expect(new URL(location, ORIGIN).searchParams.get("error")).toMatch(/state/i);
    expect(await principalOf(cookie)).toBeNull();
  });

  it("refuses an ID token whose nonce is not the one this sign-in sent", async () => {
    const { location, cookie } = await ssoSignIn("alice", { authorize: (u) => u.searchParams.set("nonce", "attacker-chosen-nonce") });
    const to = new URL(location, ORIGIN);
    expect(to.pathname).toBe("/sign-in");
    expect(to.searchParams.get("error")).toBeTruthy();
    expect(await principalOf(cookie)).toBeNull();
  });

  it("refuses a code obtained with another PKCE challenge", async () => {
    const { location, cookie } = await ssoSignIn("alice", {
      authorize: (u) => u.searchParams.set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
    });
    expect(new URL(location, ORIGIN).searchParams.get("error")).toBeTruthy();
    expect(await principalOf(cookie)).toBeNull();
  });

  it("signs out at the provider too (RP-initiated logout with the ID token as hint)", async () => {
    const { cookie, browser } = await ssoSignIn("alice");
    const res = await authRequest("/sign-out", { body: { disableRedirect: true }, cookie });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { url?: string };
    const url = new URL(body.url!);
    expect(url.origin + url.pathname).toBe(`${idp.issuer}/session/end`);
    expect(url.searchParams.get("id_token_hint")).toBeTruthy();
    expect(url.searchParams.get("post_logout_redirect_uri")).toBe(`${ORIGIN}/sign-in`);
    expect(await principalOf(cookie)).toBeNull();
    // The provider accepts the request: its "sign me out?" page, not an error.
    const page = await browser.get(url.href);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/sign me out/i);
  });
});

describe("password sign-in switched off", () => {
  it("refuses everyone's password but the break-glass admin's (audited)", async () => {
    const admin = await makeUser(db, "admin", { email: "breakglass@corp.example" });
    const analyst = await makeUser(db, "analyst");
    await db.pool.query(`INSERT INTO app_setting (key, value, updated_at) VALUES ('auth.sso', $1::jsonb, now())`, [
      JSON.stringify({ passwordSignIn: false, breakGlassEmail: admin.email }),
    ]);
    forgetSsoSettings();
    try {
      const refused = await signIn(analyst.email, PASSWORD);
      expect(refused.res.status).toBe(403);
      expect(await refused.res.json()).toMatchObject({ code: "PASSWORD_SIGN_IN_DISABLED", message: expect.stringContaining("Corp IdP") });
      const event = (await audits("auth.sign_in_failed")).at(-1);
      expect(event).toMatchObject({ actor_email: analyst.email, reason: "PASSWORD_SIGN_IN_DISABLED" });
      expect((await signIn(admin.email, PASSWORD)).res.status).toBe(200);
      // SSO still works.
      expect(await principalOf((await ssoSignIn("bob")).cookie)).toMatchObject({ role: "supervisor" });
    } finally {
      await db.pool.query(`DELETE FROM app_setting WHERE key = 'auth.sso'`);
      forgetSsoSettings();
    }
  });
});

describe("break-glass holds while password sign-in is off", () => {
  it("refuses demoting or disabling the break-glass admin (422 naming the setting), and a demoted one cannot sign in with a password", async () => {
    const { makeToken } = await import("./auth-helpers");
    const breakGlass = await makeUser(db, "admin", { email: "root@corp.example" });
    const other = await makeUser(db, "admin");
    const bearer = await makeToken(db, other.id);
    const { PATCH } = await import("../../app/api/users/[id]/route");
    const patch = (id: string, body: unknown) =>
      PATCH(
        new Request(`${ORIGIN}/api/users/${id}`, {
          method: "PATCH",
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        { params: Promise.resolve({ id }) },
      );
    await db.pool.query(`INSERT INTO app_setting (key, value, updated_at) VALUES ('auth.sso', $1::jsonb, now())`, [
      JSON.stringify({ passwordSignIn: false, breakGlassEmail: breakGlass.email }),
    ]);
    forgetSsoSettings();
    try {
      for (const [body, field] of [
        [{ role: "analyst" }, "role"],
        [{ disabled: true }, "disabled"],
        [{ role: "supervisor", disabled: true }, "role"],
      ] as const) {
        const res = await patch(breakGlass.id, body);
        expect(res.status).toBe(422);
        expect(await res.json()).toMatchObject({
          error: { code: "validation_failed", issues: [{ path: field, message: expect.stringContaining("passwordSignIn") }] },
        });
      }
      expect((await db.pool.query(`SELECT role::text AS role, disabled FROM "user" WHERE id = $1`, [breakGlass.id])).rows[0]).toEqual({
        role: "admin",
        disabled: false,
      });
      // Another admin is not held by the setting.
      expect((await patch(other.id, { role: "supervisor" })).status).toBe(200);
      expect((await signIn(breakGlass.email, PASSWORD)).res.status).toBe(200);

      // Demoted behind the API's back (or before the rule existed): the role is checked at sign-in.
      await db.pool.query(`UPDATE "user" SET role = 'analyst' WHERE id = $1`, [breakGlass.id]);
      const refused = await signIn(breakGlass.email, PASSWORD);
      expect(refused.res.status).toBe(403);
      expect(await refused.res.json()).toMatchObject({ code: "PASSWORD_SIGN_IN_DISABLED" });
    } finally {
      await db.pool.query(`DELETE FROM app_setting WHERE key = 'auth.sso'`);
      forgetSsoSettings();
    }
    // With password sign-in on, the same account is an account like any other.
    expect((await signIn(breakGlass.email, PASSWORD)).res.status).toBe(200);
  });
});

describe("SSO settings (admins)", () => {
  const actor = { id: null, email: "admin-test", role: "admin" };
  const ctx = () => ({ actor, requestId: "t", now: new Date() });

  it("stores the client secret sealed, never returns it, and audits what changed without it", async () => {
    const { updateSsoSettings, readSsoSettingsView } = await import("../../lib/auth/sso-settings");
    const { getEnv } = await import("../../lib/env");
    try {
      const view = await updateSsoSettings(
        db.pool,
        getEnv(),
        { clientSecret: "s3cret-value", roleMap: " ops = admin ", name: "Other IdP" },
        ctx(),
      );
      expect(view).toMatchObject({ clientSecretSet: { value: true, from: "settings" }, roleMap: { value: "ops=admin", from: "settings" } });
      expect(view.issuer).toEqual({ value: idp.issuer, from: "environment" });
      expect(JSON.stringify(view)).not.toContain("s3cret-value");
      const { rows } = await db.pool.query(`SELECT value FROM app_setting WHERE key = 'auth.sso'`);
      expect(JSON.stringify(rows[0].value)).not.toContain("s3cret-value");
      const event = (await audits("setting.changed")).at(-1);
      expect(event.target_id).toBe("auth.sso");
      expect(event.after).toMatchObject({ clientSecret: "(changed)", roleMap: "ops=admin", name: "Other IdP" });
      expect(JSON.stringify(event)).not.toContain("s3cret-value");
      // Cleared: the environment's values apply again.
      const back = await updateSsoSettings(db.pool, getEnv(), { clientSecret: null, roleMap: null, name: null }, ctx());
      expect(back.roleMap.from).toBe("environment");
      expect((await readSsoSettingsView(db.pool, getEnv())).name).toEqual({ value: "Corp IdP", from: "default" });
    } finally {
      await db.pool.query(`DELETE FROM app_setting WHERE key = 'auth.sso'`);
      forgetSsoSettings();
    }
  });

  it("refuses a bad role map by name, and password sign-in off without an enabled break-glass admin", async () => {
    const { updateSsoSettings } = await import("../../lib/auth/sso-settings");
    const { getEnv } = await import("../../lib/env");
    await expect(updateSsoSettings(db.pool, getEnv(), { roleMap: "ops=root" }, ctx())).rejects.toMatchObject({
      issues: [{ path: "roleMap", message: expect.stringContaining("root is not a role") }],
    });
    await expect(updateSsoSettings(db.pool, getEnv(), { passwordSignIn: false }, ctx())).rejects.toMatchObject({
      issues: [{ path: "breakGlassEmail" }],
    });
    await expect(
      updateSsoSettings(db.pool, getEnv(), { passwordSignIn: false, breakGlassEmail: "nobody@corp.example" }, ctx()),
    ).rejects.toMatchObject({
      issues: [{ path: "breakGlassEmail", message: expect.stringContaining("not an enabled admin") }],
    });
    const { rows } = await db.pool.query(`SELECT 1 FROM app_setting WHERE key = 'auth.sso'`);
    expect(rows).toHaveLength(0);
  });
});
