import "server-only";
import { betterAuth } from "better-auth/minimal";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware, getIP, getSessionFromCtx, isAPIError } from "better-auth/api";
import { nextCookies } from "better-auth/next-js";
import { genericOAuth, type GenericOAuthConfig } from "better-auth/plugins/generic-oauth";
import { getDb, type Db } from "../db/client";
import { getEnv } from "../env";
import { appendAudit, type AuditInput } from "../audit/append";
import { auditActor } from "../audit/actor";
import { unverifiedActor, userActor } from "./audit-context";
import { inTransaction } from "../db/transaction";
import { accountRefusal, REFUSAL_MESSAGES } from "./account-policy";
import { isRole, ROLES } from "./permissions";
import { parseTrustedProxies } from "../net/forwarded";
import { admitThrottleAudit } from "./throttle-audit";
import { postgresRateLimitStore } from "./rate-limit-store";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./account-schemas";
import { resolveAuthSecret } from "./secret";
import { escapeUnstorable, unstorable, type PathProblem } from "../json/storable";
import { AppError } from "../errors/app-error";
import { withOutboundGuard } from "../net/outbound-scope";
import { cachedSsoSettings, effectiveSsoConfig, OIDC_PROVIDER_ID, type OidcProviderConfig, type SsoConfig } from "./sso-config";
import { passwordSessionAllowed, passwordSignInAllowed } from "./break-glass";
import { applySsoRole, auditSsoSignIn, auditSsoUserCreated, decideSsoRole, ssoUserData } from "./sso-sign-in";

// better-auth owns sign-in, sign-out and sessions (database sessions in an httpOnly SameSite=lax cookie);
// Redrive owns accounts: there is no sign-up, users come from the CLI or an admin (lib/auth/users.ts).

const SESSION_HOURS = 8;

const passwordOffMessage = (sso: SsoConfig): string =>
  `Password sign-in is turned off: sign in with ${sso.provider?.name ?? "your identity provider"}.`;

function createAuth(db: Db, sso: SsoConfig) {
  const env = getEnv();
  return betterAuth({
    appName: "Redrive",
    // Unset: better-auth takes the origin of each request, so `npm start` on :3000 and the e2e server on
    // another port both work without configuration.
    baseURL: env.BETTER_AUTH_URL,
    secret: resolveAuthSecret(env),
    database: prismaAdapter(db.prisma, { provider: "postgresql" }),
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
    },
    // Flows that would change an account outside lib/auth/users.ts (and so outside the audit trail), or
    // need e-mail, which Redrive does not send.
    // Also every endpoint Redrive does not use (social accounts, access tokens of other providers, account info):
    // what is reachable is what app/api/auth/[...all]/route.ts documents.
    disabledPaths: [
      "/account-info",
      "/delete-user/callback",
      "/get-access-token",
      "/link-social",
      "/list-accounts",
      "/refresh-token",
      // The OIDC provider signs in through better-auth's social endpoint; with none configured it stays closed.
      ...(sso.provider ? [] : ["/sign-in/social" as const]),
      "/unlink-account",
      "/update-session",
      "/verify-password",
      "/sign-up/email",
      "/update-user",
      "/delete-user",
      "/change-email",
      "/request-password-reset",
      "/reset-password",
      "/send-verification-email",
      "/verify-email",
    ],
    // A person at the identity provider is one account here, keyed by issuer and subject: never joined to another
    // account by a matching e-mail (two subjects, two people, so four eyes keeps meaning two people).
    account: { accountLinking: { disableImplicitLinking: true } },
    // Errors of the OAuth callback (refused, tampered state) land on the sign-in page, which explains them.
    onAPIError: { errorURL: "/sign-in" },
    session: {
      expiresIn: SESSION_HOURS * 60 * 60,
      // Sliding: a session used after 15 minutes is extended to another 8 hours from then.
      updateAge: 15 * 60,
    },
    user: {
      additionalFields: {
        role: { type: [...ROLES], required: false, defaultValue: "analyst", input: false },
        disabled: { type: "boolean", required: false, defaultValue: false, input: false },
        demo: { type: "boolean", required: false, defaultValue: false, input: false },
      },
      validateUserInfo: (data, ctx) => decideSsoRole(db, sso, data, ctx),
    },
    // On in every environment (better-auth enables it only in production by default): sign-in attempts per
    // minute per client IP (REDRIVE_SIGNIN_ATTEMPTS_PER_MINUTE, default 20), counted in PostgreSQL so that every
    // server on the database shares one count.
    rateLimit: {
      enabled: true,
      customStorage: postgresRateLimitStore(db.pool),
      window: 60,
      max: 100,
      customRules: { "/sign-in/email": { window: 60, max: env.REDRIVE_SIGNIN_ATTEMPTS_PER_MINUTE } },
    },
    // Same-origin requests on whatever host and port the app is served from are trusted, as in defineRoute's
    // own Origin check; cross-site ones are not.
    trustedOrigins: (request) => (request ? [requestOrigin(request)] : []),
    telemetry: { enabled: false },
    // Explicit so tests exercise the same Origin/CSRF checks as production (better-auth skips them when
    // NODE_ENV=test unless told otherwise).
    // The client address: our server (scripts/serve.ts) sets X-Forwarded-For from the socket, or keeps a trusted
    // proxy's chain with the proxy appended; better-auth walks that chain from the right past these proxies.
    advanced: {
      cookiePrefix: "redrive",
      disableOriginCheck: false,
      disableCSRFCheck: false,
      ipAddress: { ipAddressHeaders: ["x-forwarded-for"], trustedProxies: parseTrustedProxies(env.REDRIVE_TRUSTED_PROXIES).entries },
    },
    logger: { log: authLog },
    databaseHooks: {
      user: {
        create: {
          before: async (user, ctx) => ssoUserData(user, ctx),
          after: async (user, ctx) => auditSsoUserCreated(db, user, ctx),
        },
      },
      session: {
        create: {
          after: async (session, ctx) => auditSsoSignIn(db, session, ctx),
          // After the password has been verified, so a wrong password never learns whether the account is
          // disabled. Throwing here makes the sign-in fail with this message.
          before: async (session, ctx) => {
            const user = await db.prisma.user.findUnique({
              where: { id: session.userId },
              select: { disabled: true, demo: true, email: true, role: true },
            });
            const refusal = user ? accountRefusal(user, getEnv()) : "account_disabled";
            if (refusal) throw APIError.from("FORBIDDEN", { code: refusal.toUpperCase(), message: REFUSAL_MESSAGES[refusal] });
            // The e-mail was let through before its password was checked; the break-glass account must still be an admin.
            if (ctx?.path === "/sign-in/email" && user && !(isRole(user.role) && passwordSessionAllowed(sso, user))) {
              throw APIError.from("FORBIDDEN", { code: "PASSWORD_SIGN_IN_DISABLED", message: passwordOffMessage(sso) });
            }
            await applySsoRole(db, session.userId, ctx);
          },
        },
      },
    },
    hooks: {
      // Runs after the rate limiter, so refused attempts count towards it (and their audit events stay bounded).
      before: createAuthMiddleware(async (ctx) => {
        // NUL or an unpaired surrogate fails better-auth's lookups in PostgreSQL (a bare 500: a session token to
        // revoke, an OAuth state): refused by name on every path, as every other route refuses it. A sign-in's is
        // audited first (below).
        const unstorableInput = unstorable(ctx.body, "") ?? unstorable(ctx.query ?? {}, "query");
        if (unstorableInput && ctx.path !== "/sign-in/email") throw unstorableRefusal(unstorableInput);
        // Sign-out deletes the session before the after-hook runs: remember whose it was, for the audit event.
        if (ctx.path === "/sign-out") {
          const session = await getSessionFromCtx(ctx).catch(() => null);
          if (session && ctx.request) signingOut.set(ctx.request, session);
          return;
        }
        if (ctx.path !== "/sign-in/email") return;
        const email = attemptedEmail(ctx.body);
        if (email !== null && !passwordSignInAllowed(sso, email)) {
          const message = passwordOffMessage(sso);
          await inTransaction(db.pool, (client) =>
            appendAudit(
              client,
              [
                {
                  ...auditActor(unverifiedActor(email)),
                  action: "auth.sign_in_failed",
                  targetType: "user",
                  reason: "PASSWORD_SIGN_IN_DISABLED",
                  after: { ip: ctx.request ? getIP(ctx.request, ctx.context.options) : null },
                  requestId: ctx.request?.headers.get("x-request-id")?.slice(0, 100) ?? null,
                },
              ],
              new Date(),
            ),
          ).catch((err: unknown) => console.error(`[auth] refused sign-in not audited: ${(err as Error).message}`));
          throw APIError.from("FORBIDDEN", { code: "PASSWORD_SIGN_IN_DISABLED", message });
        }
        // The same fails the user lookup and the audit event with it: the attempt is audited with those characters
        // written as escapes.
        const bad = unstorableInput;
        if (!bad) return;
        const path = escapeUnstorable(bad.path) || "body";
        const event: AuditInput = {
          ...auditActor(unverifiedActor(attemptedEmail(ctx.body))),
          action: "auth.sign_in_failed",
          targetType: "user",
          reason: "INVALID_INPUT",
          after: { ip: ctx.request ? getIP(ctx.request, ctx.context.options) : null, field: path },
          requestId: ctx.request?.headers.get("x-request-id")?.slice(0, 100) ?? null,
        };
        // The refusal stands whether or not its audit event could be written.
        await inTransaction(db.pool, (client) => appendAudit(client, [event], new Date())).catch((err: unknown) =>
          console.error(`[auth] refused sign-in not audited: ${(err as Error).message}`),
        );
        throw unstorableRefusal(bad);
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/sign-in/email" && ctx.path !== "/change-password" && !(ctx.path in SESSION_REVOCATIONS)) return;
        const requestId = ctx.request?.headers.get("x-request-id")?.slice(0, 100) ?? null;
        const ip = ctx.request ? getIP(ctx.request, ctx.context.options) : null;
        const returned: unknown = ctx.context.returned;
        const events: AuditInput[] = [];
        if (ctx.path === "/sign-in/email") {
          const newSession = ctx.context.newSession;
          if (isAPIError(returned)) {
            events.push({
              ...auditActor(unverifiedActor(attemptedEmail(ctx.body))),
              action: "auth.sign_in_failed",
              targetType: "user",
              reason: typeof returned.body?.code === "string" ? returned.body.code : String(returned.status),
              after: { ip },
              requestId,
            });
          } else if (newSession) {
            const { user, session } = newSession;
            events.push({
              ...auditActor(userActor(user)),
              action: "auth.sign_in",
              targetType: "user",
              targetId: user.id,
              after: { sessionId: session.id, ip, expiresAt: session.expiresAt.toISOString() },
              requestId,
            });
          }
        } else if (ctx.path in SESSION_REVOCATIONS) {
          // Who ended which sessions: the caller's own (sign-out), one by token, all, or all but the current one.
          const ended = ctx.context.session ?? (ctx.request ? signingOut.get(ctx.request) : undefined);
          if (!isAPIError(returned) && ended) {
            const { user, session } = ended;
            events.push({
              ...auditActor(userActor(user)),
              action: SESSION_REVOCATIONS[ctx.path]!,
              targetType: "user",
              targetId: user.id,
              after: { ip, sessionId: session.id, ...(ctx.path === "/revoke-session" ? { revokedOne: true } : {}) },
              requestId,
            });
          }
        } else if (!isAPIError(returned) && ctx.context.session) {
          const { user } = ctx.context.session;
          events.push({
            ...auditActor(userActor(user)),
            action: "user.password_changed",
            targetType: "user",
            targetId: user.id,
            after: { ip },
            requestId,
          });
        }
        if (events.length) await inTransaction(db.pool, (client) => appendAudit(client, events, new Date()));
      }),
    },
    // Last: lets auth.api calls made inside route handlers and server actions set the refreshed cookie.
    plugins: [...(sso.provider ? [genericOAuth({ config: [oidcProvider(sso.provider, env.BETTER_AUTH_URL)] })] : []), nextCookies()],
  });
}

/**
 * The identity provider for better-auth's generic OAuth plugin: endpoints and keys from discovery, PKCE, and the
 * ID token verified (signature against the provider's JWKS, issuer, audience, the nonce bound to the sign-in's
 * state); a provider whose discovery gives no keys is not registered rather than trusted unverified.
 */
function oidcProvider(p: OidcProviderConfig, baseURL: string | undefined): GenericOAuthConfig {
  return {
    providerId: OIDC_PROVIDER_ID,
    name: p.name,
    discoveryUrl: `${p.issuer}/.well-known/openid-configuration`,
    requireIdTokenVerification: true,
    clientId: p.clientId,
    clientSecret: p.clientSecret,
    scopes: p.scopes,
    pkce: true,
    // RP-initiated logout: sign-out sends the browser to the provider's end_session_endpoint with the ID token as
    // hint. Coming back here afterwards takes the public URL (the plugin resolves it against a fixed base URL);
    // without it the provider shows its own signed-out page.
    postLogoutRedirectURI: baseURL ? `${baseURL.replace(/\/+$/, "")}/sign-in` : undefined,
    mapProfileToUser: (profile) => ({
      name: [profile.name, profile.preferred_username, profile.email].find((v): v is string => typeof v === "string" && v !== "") ?? "",
    }),
  };
}

type EndedSession = { user: { id: string; email: string; role?: unknown }; session: { id: string } };
const signingOut = new WeakMap<Request, EndedSession>();

/** better-auth's endpoints that end sessions, and the audit action each is recorded as. */
const SESSION_REVOCATIONS: Record<string, string> = {
  "/sign-out": "auth.sign_out",
  "/revoke-session": "auth.session_revoked",
  "/revoke-sessions": "auth.sessions_revoked",
  "/revoke-other-sessions": "auth.other_sessions_revoked",
};

/**
 * The origin the browser addressed: from the Host header (x-forwarded-host behind a proxy), not from
 * request.url, which `next start` builds from its own hostname ("localhost") whatever the client used
 * (127.0.0.1 in the e2e tests). A cross-site page cannot set these headers, so this stays a CSRF check.
 */
export function requestOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host") ?? url.host;
  const proto = request.headers.get("x-forwarded-proto") ?? url.protocol.replace(/:$/, "");
  return `${proto}://${host}`;
}

/**
 * The request as the browser addressed it. Without BETTER_AUTH_URL better-auth takes its base URL from request.url,
 * which `next start` builds as localhost: the redirect URI sent to the identity provider would then bring the
 * browser back to another origin than the one holding its sign-in state cookie.
 */
function addressed(request: Request): Request {
  const url = new URL(request.url);
  const origin = requestOrigin(request);
  if (url.origin === origin) return request;
  const init: RequestInit & { duplex?: "half" } = { method: request.method, headers: request.headers, signal: request.signal };
  if (request.body) Object.assign(init, { body: request.body, duplex: "half" });
  return new Request(`${origin}${url.pathname}${url.search}`, init);
}

/**
 * The e-mail a sign-in tried, as the audit trail keeps it: what PostgreSQL cannot store written as escapes,
 * after the cut, which may itself split a surrogate pair.
 */
function attemptedEmail(body: unknown): string | null {
  if (typeof body !== "object" || body === null || !("email" in body) || typeof body.email !== "string") return null;
  return escapeUnstorable(body.email.trim().toLowerCase().slice(0, 254));
}

function authLog(level: "debug" | "info" | "warn" | "error", message: string, ...args: unknown[]): void {
  if (level === "debug") return;
  // Leaving baseURL unset is deliberate (see createAuth); the warning about it would print on every start.
  if (message.includes("Base URL is not set")) return;
  const write = level === "error" ? console.error : level === "warn" ? console.warn : console.info;
  write(`[auth] ${message}`, ...args);
}

export type Auth = ReturnType<typeof createAuth>;

const globalForAuth = globalThis as unknown as { __redriveAuth?: { db: Db; auth: Auth; sso: SsoConfig; key: string } };

/**
 * The process-wide better-auth instance on the process-wide database (getDb()), built for the single sign-on
 * configuration last read (refreshSsoConfig); the environment's until then.
 */
export function getAuth(): Auth {
  const db = getDb();
  const cached = globalForAuth.__redriveAuth;
  if (cached?.db === db) return cached.auth;
  return install(db, effectiveSsoConfig(getEnv(), null));
}

function install(db: Db, sso: SsoConfig): Auth {
  if (sso.issuerRefused) console.error(`[auth] single sign-on is off: ${sso.issuerRefused}`);
  // The plugin starts the issuer's discovery as the instance is built: inside the guard, as every later fetch.
  const auth = withOutboundGuard(() => {
    const created = createAuth(db, sso);
    void created.$context.catch(() => undefined);
    return created;
  });
  globalForAuth.__redriveAuth = { db, auth, sso, key: JSON.stringify(sso) };
  return auth;
}

/** The single sign-on configuration in force: the environment's, overridden by an admin's settings. */
export async function currentSsoConfig(now: Date): Promise<SsoConfig> {
  const db = getDb();
  const sso = effectiveSsoConfig(getEnv(), await cachedSsoSettings(db.pool, now.getTime()));
  const cached = globalForAuth.__redriveAuth;
  // A changed configuration (an admin's settings) takes a new instance: better-auth reads its providers once.
  if (cached?.db !== db || cached.key !== JSON.stringify(sso)) install(db, sso);
  return sso;
}

/** better-auth's refusal of text PostgreSQL cannot store, in the body every other /api route answers a 4xx with (lib/api/handler.ts), which the sign-in form reads. */
function unstorableRefusal(bad: PathProblem): APIError {
  const path = escapeUnstorable(bad.path) || "body";
  const refusal = new AppError("bad_request", `${path}: ${bad.message}`, { issues: [{ path, message: bad.message }] });
  return new APIError("BAD_REQUEST", refusal.toJSON());
}

/**
 * better-auth's handler, plus what its hooks cannot see: a sign-in refused by the rate limiter (429) is audited
 * as auth.sign_in_throttled, once per client address per minute on all servers together (throttle-audit.ts). `now` is the request's time.
 */
export async function handleAuthRequest(request: Request, now: Date): Promise<Response> {
  const sso = await currentSsoConfig(now);
  const auth = getAuth();
  // Everything the handler fetches (the issuer's discovery, keys, token and userinfo endpoints) goes through the
  // outbound rule, as sinks and webhooks do.
  const res = await withOutboundGuard(() => auth.handler(sso.provider && !getEnv().BETTER_AUTH_URL ? addressed(request) : request));
  if (res.status !== 429 || !new URL(request.url).pathname.endsWith("/sign-in/email")) return res;
  const ip = getIP(request, auth.options) ?? "unknown";
  // The refusal stands whether or not it could be audited.
  const audit = await admitThrottleAudit(getDb().pool, ip).catch((err: unknown) => {
    console.error(`[auth] throttled sign-in not audited: ${(err as Error).message}`);
    return false;
  });
  if (audit) {
    const event: AuditInput = {
      action: "auth.sign_in_throttled",
      targetType: "user",
      reason: "too many sign-in attempts from this address",
      after: { ip, limitPerMinute: getEnv().REDRIVE_SIGNIN_ATTEMPTS_PER_MINUTE },
      requestId: request.headers.get("x-request-id")?.slice(0, 100) ?? null,
    };
    // The refusal stands whether or not its audit event could be written.
    await inTransaction(getDb().pool, (client) => appendAudit(client, [event], now)).catch((err: unknown) =>
      console.error(`[auth] throttled sign-in not audited: ${(err as Error).message}`),
    );
  }
  return res;
}

/** Hashes a password the way sign-in verifies it (better-auth's scrypt, through its context). */
export async function hashPassword(password: string): Promise<string> {
  return (await getAuth().$context).password.hash(password);
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  return (await getAuth().$context).password.verify({ password, hash });
}
