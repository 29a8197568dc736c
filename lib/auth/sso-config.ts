import "server-only";
import type pg from "pg";
import { z } from "zod";
import type { Env } from "../env";
import { openSecret } from "../secrets/stored-secret";
import { parseRoleMap, type RoleMapping } from "./sso-roles";
import { parseTeamMap, type TeamMapEntry } from "./sso-teams";
import type { BreakGlassSettings } from "./break-glass";

// Single sign-on as configured: the environment (REDRIVE_OIDC_*) gives the defaults, the admin's settings (one
// app_setting row, the client secret sealed like source URLs) override them field by field. Read through a short
// cache so every auth request does not query it (one per process), and dropped at once in the process that changes it;
// every other server on the database sees a change within CACHE_MS.

export const OIDC_PROVIDER_ID = "oidc";
export const SSO_SETTING_KEY = "auth.sso";
// A second leaves the other half of the 2 s promised in the README for the request that shows the change.
const CACHE_MS = 1_000;

/** What an admin may store; every field optional (unset: the environment's value). */
export const SsoSettingsSchema = z
  .object({
    issuer: z.string().url().nullable().optional(),
    clientId: z.string().min(1).max(500).nullable().optional(),
    /** sealed (lib/secrets) */
    clientSecret: z.string().min(1).nullable().optional(),
    name: z.string().min(1).max(60).nullable().optional(),
    scopes: z.string().max(500).nullable().optional(),
    groupsClaim: z.string().min(1).max(200).nullable().optional(),
    roleMap: z.string().max(4000).nullable().optional(),
    passwordSignIn: z.boolean().optional(),
    breakGlassEmail: z.string().email().nullable().optional(),
  })
  .strict();
export type SsoSettings = z.infer<typeof SsoSettingsSchema>;

export interface OidcProviderConfig {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  name: string;
  scopes: string[];
}

export interface SsoConfig {
  /** null: single sign-on is not configured, or its issuer is refused (issuerRefused) */
  provider: OidcProviderConfig | null;
  /** why the configured issuer is not used (an http:// issuer in production), else null */
  issuerRefused: string | null;
  mapping: RoleMapping;
  /** REDRIVE_OIDC_TEAM_MAP: the groups that put a person in a team, applied at every SSO sign-in */
  teamMap: TeamMapEntry[];
  /** false: only the break-glass admin may sign in with a password */
  passwordSignIn: boolean;
  breakGlassEmail: string | null;
}

type SsoEnv = Pick<
  Env,
  | "REDRIVE_OIDC_ISSUER"
  | "REDRIVE_OIDC_CLIENT_ID"
  | "REDRIVE_OIDC_CLIENT_SECRET"
  | "REDRIVE_OIDC_NAME"
  | "REDRIVE_OIDC_SCOPES"
  | "REDRIVE_OIDC_GROUPS_CLAIM"
  | "REDRIVE_OIDC_ROLE_MAP"
  | "REDRIVE_OIDC_TEAM_MAP"
  | "REDRIVE_BREAK_GLASS_ADMIN"
  | "REDRIVE_OIDC_ALLOW_HTTP"
  | "NODE_ENV"
>;

/**
 * Why `issuer` may not be used, or null. In production it must be https://: the discovery document and the keys
 * that verify every sign-in are fetched from it, and over http:// anyone on the path could hand over their own.
 * REDRIVE_OIDC_ALLOW_HTTP=1 accepts http:// anyway (a test provider on loopback).
 */
export function ssoIssuerProblem(issuer: string, env: Pick<Env, "NODE_ENV" | "REDRIVE_OIDC_ALLOW_HTTP">): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return "must be a URL";
  }
  if (url.protocol === "https:") return null;
  if (url.protocol !== "http:") return "must be an https:// URL";
  return env.NODE_ENV === "production" && env.REDRIVE_OIDC_ALLOW_HTTP !== "1"
    ? "must be an https:// URL in production (REDRIVE_OIDC_ALLOW_HTTP=1 allows http:// for a test provider)"
    : null;
}

/** The effective configuration from the environment and the stored settings (pure but for unsealing). */
export function effectiveSsoConfig(env: SsoEnv, stored: SsoSettings | null): SsoConfig {
  const s = stored ?? {};
  const issuer = s.issuer ?? env.REDRIVE_OIDC_ISSUER;
  const clientId = s.clientId ?? env.REDRIVE_OIDC_CLIENT_ID;
  const clientSecret = s.clientSecret ? openSecret(s.clientSecret) : env.REDRIVE_OIDC_CLIENT_SECRET;
  const scopes = (s.scopes ?? env.REDRIVE_OIDC_SCOPES).split(/[\s,]+/).filter(Boolean);
  const problem = issuer ? ssoIssuerProblem(issuer, env) : null;
  return {
    provider:
      issuer && clientId && !problem
        ? { issuer: issuer.replace(/\/+$/, ""), clientId, clientSecret, name: s.name ?? env.REDRIVE_OIDC_NAME, scopes }
        : null,
    issuerRefused: problem && `the SSO issuer ${issuer} ${problem}`,
    mapping: { claim: s.groupsClaim ?? env.REDRIVE_OIDC_GROUPS_CLAIM, map: roleMapOf(s.roleMap, env.REDRIVE_OIDC_ROLE_MAP) },
    teamMap: teamMapOf(env.REDRIVE_OIDC_TEAM_MAP),
    ...breakGlassSettingsOf(env, s),
  };
}

/** The two settings the break-glass rules read (break-glass.ts), without unsealing anything. */
export function breakGlassSettingsOf(env: Pick<Env, "REDRIVE_BREAK_GLASS_ADMIN">, stored: SsoSettings | null): BreakGlassSettings {
  return {
    passwordSignIn: stored?.passwordSignIn ?? true,
    breakGlassEmail: (stored?.breakGlassEmail ?? env.REDRIVE_BREAK_GLASS_ADMIN)?.trim().toLowerCase() || null,
  };
}

function teamMapOf(fromEnv: string | undefined): TeamMapEntry[] {
  try {
    return parseTeamMap(fromEnv ?? "");
  } catch (e) {
    throw new Error(`REDRIVE_OIDC_TEAM_MAP: ${(e as Error).message}`);
  }
}

function roleMapOf(stored: string | null | undefined, fromEnv: string | undefined) {
  try {
    return parseRoleMap(stored ?? fromEnv ?? "");
  } catch (e) {
    throw new Error(`${stored != null ? "the stored SSO role map" : "REDRIVE_OIDC_ROLE_MAP"}: ${(e as Error).message}`);
  }
}

/** The stored settings; `lock` ("FOR SHARE") holds them until the caller's transaction ends. */
export async function readSsoSettings(db: pg.Pool | pg.PoolClient, lock: "" | "FOR SHARE" = ""): Promise<SsoSettings | null> {
  const { rows } = await db.query<{ value: unknown }>(`SELECT value FROM app_setting WHERE key = $1 ${lock}`, [SSO_SETTING_KEY]);
  if (!rows[0]) return null;
  const parsed = SsoSettingsSchema.safeParse(rows[0].value);
  if (!parsed.success) throw new Error(`app_setting ${SSO_SETTING_KEY} is malformed: ${parsed.error.issues[0]?.message ?? ""}`);
  return parsed.data;
}

type SettingsCache = { at: number; pool: pg.Pool; settings: SsoSettings | null };
// On globalThis, as the auth instance is (auth.ts): Next bundles each route with its own copy of this module, and
// a copy still holding the settings from before an admin's change rebuilt the shared instance without the
// provider (a sign-out then no longer ended the session at the provider).
const shared = globalThis as unknown as { __redriveSsoSettings?: SettingsCache };

/** The stored settings, at most CACHE_MS old. */
export async function cachedSsoSettings(pool: pg.Pool, now: number): Promise<SsoSettings | null> {
  const cache = shared.__redriveSsoSettings;
  if (cache && cache.pool === pool && now - cache.at < CACHE_MS) return cache.settings;
  const settings = await readSsoSettings(pool);
  shared.__redriveSsoSettings = { at: now, pool, settings };
  return settings;
}

export function forgetSsoSettings(): void {
  delete shared.__redriveSsoSettings;
}
