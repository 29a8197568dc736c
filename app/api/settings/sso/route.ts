import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { SsoSettingsBody } from "@/lib/auth/sso-schemas";
import { readSsoSettingsView, updateSsoSettings } from "@/lib/auth/sso-settings";
import { getDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";

export const dynamic = "force-dynamic";

/** GET /api/settings/sso — single sign-on as in force: each field's value and whether settings or the environment set it. */
export const GET = defineRoute(
  {
    access: { permission: "settings:manage" },
    openapi: {
      tag: "accounts",
      summary: "Single sign-on (OpenID Connect) in force: each field's value and whether the settings or the environment set it",
      responses: {
        200: {
          description:
            "{configured, issuer, clientId, clientSecretSet, name, scopes, groupsClaim, roleMap, passwordSignIn, breakGlassEmail, …}",
        },
      },
    },
  },
  async () => readSsoSettingsView(getDb().pool, getEnv()),
);

/**
 * PUT /api/settings/sso — change the identity provider, the group-to-role map, or password sign-in (admins;
 * audited as setting.changed; the client secret sealed and never returned).
 */
export const PUT = defineRoute(
  {
    access: { permission: "settings:manage" },
    body: SsoSettingsBody,
    openapi: {
      tag: "accounts",
      summary:
        "Change the identity provider, the group-to-role map or password sign-in (admins; audited as setting.changed; the client secret sealed, never returned)",
      responses: { 200: { description: "as GET" } },
    },
  },
  async ({ body, principal, requestId, now }) =>
    updateSsoSettings(getDb().pool, getEnv(), body, { actor: actorOf(principal!), requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PATCH, DELETE } = otherMethods("GET", "PUT");
