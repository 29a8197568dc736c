import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";

// A real OpenID provider for the SSO tests: panva's oidc-provider (a certified implementation) with its
// development login pages (any password), a confidential client, PKCE, RP-initiated logout, and people whose
// groups a test may change between sign-ins. Consent is implied (a company's own application), so a sign-in is
// the login form and nothing more.

export interface TestPerson {
  email: string;
  name: string;
  groups: string[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** login name (the dev login form's "login" field, also the subject) → person; change groups freely */
  people: Map<string, TestPerson>;
  close(): Promise<void>;
}

export const CLIENT_ID = "redrive";
export const CLIENT_SECRET = "redrive-test-client-secret-0123456789";

export async function startOidcProvider(opts: { port?: number; redirectOrigins: string[] }): Promise<TestOidcProvider> {
  const people = new Map<string, TestPerson>([
    ["alice", { email: "alice@corp.example", name: "Alice Lead", groups: ["redrive-supervisors", "everyone"] }],
    ["bob", { email: "bob@corp.example", name: "Bob Ops", groups: ["ops", "everyone"] }],
    ["carol", { email: "carol@corp.example", name: "Carol Sales", groups: ["sales", "everyone"] }],
  ]);
  const port = opts.port ?? 0;
  // The issuer must be known before listening: bind first, then build the provider on the port given.
  const { createServer } = await import("node:http");
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: opts.redirectOrigins.map((o) => `${o}/api/auth/callback/oidc`),
        post_logout_redirect_uris: opts.redirectOrigins.map((o) => `${o}/sign-in`),
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"], groups: ["groups"] },
    scopes: ["openid", "email", "profile", "groups"],
    // Groups in the ID token, as Keycloak, Entra ID and Okta put them when asked.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    cookies: { keys: ["oidc-test-cookie-key-0123456789"] },
    findAccount: (_ctx: KoaContextWithOIDC, id: string) => {
      const person = people.get(id);
      if (!person) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: person.email,
          email_verified: true,
          name: person.name,
          preferred_username: id,
          groups: [...person.groups],
        }),
      };
    },
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (!accountId || !clientId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId, accountId });
      grant.addOIDCScope("openid email profile groups");
      await grant.save();
      return grant;
    },
  });
  // The dev interactions warn on every start; the tests know.
  provider.on("server_error", (_ctx: unknown, err: Error) => console.error(`[oidc-provider] ${err.message}`));
  server.on("request", provider.callback());

  return {
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    people,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
