import { z } from "zod";

// The SSO settings as the API and the settings panel see them: shared by the route, lib/auth/sso-settings.ts and
// components/settings/sso-panel.tsx.

const nullableText = (max: number) => z.string().trim().min(1).max(max).nullable().optional();

/**
 * PUT /api/settings/sso. A field left out keeps its stored value; null removes it (the environment's value, if
 * any, applies again). The client secret is write-only: sent to change it, null to remove it.
 */
export const SsoSettingsBody = z.strictObject({
  issuer: z.string().trim().url().max(500).nullable().optional(),
  clientId: nullableText(500),
  clientSecret: nullableText(2000),
  name: nullableText(60),
  scopes: nullableText(500),
  groupsClaim: nullableText(200),
  roleMap: z.string().trim().max(4000).nullable().optional(),
  passwordSignIn: z.boolean().optional(),
  breakGlassEmail: z.string().trim().toLowerCase().email().max(254).nullable().optional(),
});
export type SsoSettingsBody = z.infer<typeof SsoSettingsBody>;

/** One setting: the value in force and where it comes from. */
export interface SsoField<T> {
  value: T;
  from: "settings" | "environment" | "default";
}

export interface SsoSettingsView {
  /** single sign-on is on: an issuer and a client id are set */
  configured: boolean;
  issuer: SsoField<string | null>;
  clientId: SsoField<string | null>;
  /** the secret itself is never shown */
  clientSecretSet: SsoField<boolean>;
  name: SsoField<string>;
  scopes: SsoField<string>;
  groupsClaim: SsoField<string>;
  roleMap: SsoField<string>;
  passwordSignIn: SsoField<boolean>;
  breakGlassEmail: SsoField<string | null>;
  /** the redirect URI to register at the provider, relative to Redrive's public URL */
  callbackPath: string;
  updatedAt: string | null;
  updatedBy: string | null;
}
