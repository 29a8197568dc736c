import "server-only";
import { writeSetting } from "../audit/setting-change";
import type { JsonValue } from "../json/value";
import type pg from "pg";
import type { Actor } from "../audit/actor";
import { AppError } from "../errors/app-error";
import { inTransaction } from "../db/transaction";
import type { Env } from "../env";
import { sealSecret } from "../secrets/stored-secret";
import {
  effectiveSsoConfig,
  forgetSsoSettings,
  OIDC_PROVIDER_ID,
  SSO_SETTING_KEY,
  SsoSettingsSchema,
  type SsoSettings,
} from "./sso-config";
import type { SsoField, SsoSettingsBody, SsoSettingsView } from "./sso-schemas";
import { formatRoleMap, parseRoleMap } from "./sso-roles";

// An admin's single sign-on settings: one app_setting row, the client secret sealed (lib/secrets), every change
// audited as setting.changed with what changed (the secret only as "set" or "removed").

interface SettingRow {
  value: unknown;
  updated_at: Date;
  email: string | null;
}

const SELECT = `SELECT s.value, s.updated_at, u.email FROM app_setting s LEFT JOIN "user" u ON u.id = s.updated_by_id WHERE s.key = $1`;

function stored(row: SettingRow | undefined): SsoSettings {
  if (!row) return {};
  const parsed = SsoSettingsSchema.safeParse(row.value);
  if (!parsed.success) throw new Error(`app_setting ${SSO_SETTING_KEY} is malformed: ${parsed.error.issues[0]?.message ?? ""}`);
  return parsed.data;
}

function field<T>(fromSettings: T | null | undefined, fromEnv: T | null | undefined, fallback: T): SsoField<T> {
  if (fromSettings !== undefined && fromSettings !== null) return { value: fromSettings, from: "settings" };
  if (fromEnv !== undefined && fromEnv !== null) return { value: fromEnv, from: "environment" };
  return { value: fallback, from: "default" };
}

function view(env: Env, row: SettingRow | undefined): SsoSettingsView {
  const s = stored(row);
  const effective = effectiveSsoConfig(env, s);
  return {
    configured: effective.provider !== null,
    issuer: field(s.issuer, env.REDRIVE_OIDC_ISSUER, null),
    clientId: field(s.clientId, env.REDRIVE_OIDC_CLIENT_ID, null),
    clientSecretSet: field(s.clientSecret ? true : undefined, env.REDRIVE_OIDC_CLIENT_SECRET ? true : undefined, false),
    name: field(s.name, undefined, env.REDRIVE_OIDC_NAME),
    scopes: field(s.scopes, undefined, env.REDRIVE_OIDC_SCOPES),
    groupsClaim: field(s.groupsClaim, undefined, env.REDRIVE_OIDC_GROUPS_CLAIM),
    roleMap: field(s.roleMap, env.REDRIVE_OIDC_ROLE_MAP, ""),
    passwordSignIn: field(s.passwordSignIn, undefined, true),
    breakGlassEmail: field(s.breakGlassEmail, env.REDRIVE_BREAK_GLASS_ADMIN, null),
    callbackPath: `/api/auth/callback/${OIDC_PROVIDER_ID}`,
    updatedAt: row?.updated_at.toISOString() ?? null,
    updatedBy: row?.email ?? null,
  };
}

export async function readSsoSettingsView(pool: pg.Pool, env: Env): Promise<SsoSettingsView> {
  return view(env, (await pool.query<SettingRow>(SELECT, [SSO_SETTING_KEY])).rows[0]);
}

const invalid = (path: string, message: string) =>
  new AppError("validation_failed", `${path}: ${message}`, { issues: [{ path, message }] });

export async function updateSsoSettings(
  pool: pg.Pool,
  env: Env,
  body: SsoSettingsBody,
  ctx: { actor: Actor; requestId: string | null; now: Date },
): Promise<SsoSettingsView> {
  let roleMap = body.roleMap;
  if (typeof roleMap === "string") {
    try {
      roleMap = formatRoleMap(parseRoleMap(roleMap)) || null;
    } catch (e) {
      throw invalid("roleMap", (e as Error).message);
    }
  }
  const result = await inTransaction(pool, async (client) => {
    const row = (await client.query<SettingRow>(`${SELECT} FOR UPDATE OF s`, [SSO_SETTING_KEY])).rows[0];
    const before = stored(row);
    const next: SsoSettings = { ...before };
    const patch: Record<string, unknown> = { ...body, roleMap };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined || key === "clientSecret") continue;
      (next as Record<string, unknown>)[key] = value;
    }
    if (body.clientSecret !== undefined) next.clientSecret = body.clientSecret === null ? null : sealSecret(body.clientSecret);
    for (const key of Object.keys(next) as (keyof SsoSettings)[]) if (next[key] === null) delete next[key];

    const effective = effectiveSsoConfig(env, next);
    if (!effective.passwordSignIn) {
      if (!effective.provider)
        throw invalid("passwordSignIn", "password sign-in can only be turned off once an identity provider is configured");
      if (!effective.breakGlassEmail) throw invalid("breakGlassEmail", "set a break-glass admin before turning password sign-in off");
      // Shared: a change to that account waits for this one (users.ts takes these settings first, then the account).
      const admin = await client.query(`SELECT 1 FROM "user" WHERE email = $1 AND role = 'admin' AND NOT disabled FOR SHARE`, [
        effective.breakGlassEmail,
      ]);
      if (!admin.rowCount) throw invalid("breakGlassEmail", `${effective.breakGlassEmail} is not an enabled admin`);
    }
    // What the audit trail keeps: every field that changed, the secret only as whether it is set.
    const shown = (s: SsoSettings) => ({ ...s, clientSecret: s.clientSecret ? "(set)" : undefined });
    const changed = Object.keys({ ...before, ...next }).filter(
      (k) => JSON.stringify(before[k as keyof SsoSettings]) !== JSON.stringify(next[k as keyof SsoSettings]),
    );
    if (changed.length) {
      const pick = (s: ReturnType<typeof shown>): Record<string, JsonValue> =>
        Object.fromEntries(changed.map((k) => [k, (s[k as keyof SsoSettings] ?? null) as JsonValue]));
      await writeSetting(
        client,
        {
          key: SSO_SETTING_KEY,
          value: next as JsonValue,
          before: pick(shown(before)),
          after: {
            ...pick(shown(next)),
            ...(changed.includes("clientSecret") ? { clientSecret: next.clientSecret ? "(changed)" : null } : {}),
          },
        },
        ctx,
      );
    }
    return view(env, (await client.query<SettingRow>(SELECT, [SSO_SETTING_KEY])).rows[0]);
  });
  forgetSsoSettings();
  return result;
}
