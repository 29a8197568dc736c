import { describe, expect, it } from "vitest";
import { effectiveSsoConfig, ssoIssuerProblem } from "./sso-config";

const env = (over: Partial<Parameters<typeof effectiveSsoConfig>[0]> = {}): Parameters<typeof effectiveSsoConfig>[0] => ({
  NODE_ENV: "production",
  REDRIVE_OIDC_ISSUER: undefined,
  REDRIVE_OIDC_CLIENT_ID: undefined,
  REDRIVE_OIDC_CLIENT_SECRET: undefined,
  REDRIVE_OIDC_NAME: "single sign-on",
  REDRIVE_OIDC_SCOPES: "openid",
  REDRIVE_OIDC_GROUPS_CLAIM: "groups",
  REDRIVE_OIDC_ROLE_MAP: undefined,
  REDRIVE_BREAK_GLASS_ADMIN: undefined,
  REDRIVE_OIDC_ALLOW_HTTP: undefined,
  ...over,
});

describe("the SSO issuer", () => {
  it("must be https:// in production, unless REDRIVE_OIDC_ALLOW_HTTP=1 says a test provider is meant", () => {
    expect(ssoIssuerProblem("https://idp.example.com/realms/x", env())).toBeNull();
    expect(ssoIssuerProblem("http://idp.example.com", env())).toMatch(/^must be an https:\/\/ URL in production/);
    expect(ssoIssuerProblem("http://127.0.0.1:9000", env({ REDRIVE_OIDC_ALLOW_HTTP: "1" }))).toBeNull();
    expect(ssoIssuerProblem("http://127.0.0.1:9000", env({ NODE_ENV: "development" }))).toBeNull();
    expect(ssoIssuerProblem("ftp://idp.example.com", env({ NODE_ENV: "development" }))).toBe("must be an https:// URL");
  });

  it("an http:// issuer from the environment or stored before turns single sign-on off, saying why", () => {
    const config = effectiveSsoConfig(env({ REDRIVE_OIDC_ISSUER: "http://idp.example.com", REDRIVE_OIDC_CLIENT_ID: "c" }), null);
    expect(config.provider).toBeNull();
    expect(config.issuerRefused).toMatch(/^the SSO issuer http:\/\/idp\.example\.com must be an https:\/\/ URL in production/);
    const stored = effectiveSsoConfig(env(), { issuer: "https://idp.example.com", clientId: "c" });
    expect(stored.provider).toMatchObject({ issuer: "https://idp.example.com" });
    expect(stored.issuerRefused).toBeNull();
  });
});
