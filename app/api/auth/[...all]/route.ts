import { toNextJsHandler } from "better-auth/next-js";
import { z } from "zod";
import { describedRoute, errorResponse, noRouteError, otherMethods, requestIdOf } from "@/lib/api/handler";
import { handleAuthRequest } from "@/lib/auth/auth";

// better-auth's own endpoints (sign-in, sign-out, get-session, change-password); sign-up and account edits
// are disabled in lib/auth/auth.ts. The one route not built with defineRoute: better-auth checks origins and
// rate-limits itself.
export const dynamic = "force-dynamic";

/**
 * better-auth answers a path it does not have (and the disabled sign-up and account edits) with an empty or
 * plain-text 404: answer it as every other unknown /api path does, in JSON naming the path.
 */
async function handle(request: Request): Promise<Response> {
  const res = await handleAuthRequest(request, new Date());
  if (res.status !== 404 || res.headers.get("content-type")?.includes("json")) return res;
  return errorResponse(noRouteError(request), requestIdOf(request));
}

const notSignedIn = { 401: { description: "Not signed in" } };

/** The paths below /api/auth that sign-in, sessions and the password use (what lib/auth/auth.ts leaves enabled). */
const handlers = toNextJsHandler(handle);

export const GET = describedRoute(
  handlers.GET,
  { public: true },
  {
    subpaths: {
      "/callback/{id}": {
        tag: "accounts",
        summary:
          "The identity provider's redirect back (better-auth): checks state, exchanges the code with the PKCE verifier, verifies the ID token and its nonce, maps groups to a role; audited as auth.sso_sign_in or auth.sso_refused",
        params: z.object({ id: z.literal("oidc") }),
        responses: { 302: { description: "To the page asked for, signed in; or to /sign-in?error=<code>" } },
      },
      "/get-session": {
        tag: "accounts",
        summary: "The current session (better-auth)",
        responses: { 200: { description: "The session, or null" } },
      },
      "/list-sessions": {
        tag: "accounts",
        summary: "Your own sessions (better-auth): where you are signed in",
        responses: { 200: { description: "The sessions" }, ...notSignedIn },
      },
    },
  },
);

export const POST = describedRoute(
  handlers.POST,
  { public: true },
  {
    subpaths: {
      "/sign-in/email": {
        tag: "accounts",
        summary: "Sign in (better-auth); sets the session cookie",
        body: z.object({ email: z.string(), password: z.string(), rememberMe: z.boolean().optional() }),
        responses: {
          200: { description: "Signed in" },
          400: { description: "A field missing or malformed (better-auth's own error body: { message, code })" },
          401: { description: "Wrong e-mail or password" },
          429: { description: "Too many attempts" },
        },
      },
      "/sign-in/social": {
        tag: "accounts",
        summary:
          "Start single sign-on (better-auth's OAuth flow; provider \"oidc\", only when configured): answers the identity provider's authorization URL, with state, PKCE and nonce",
        body: z.object({
          provider: z.literal("oidc"),
          callbackURL: z.string().optional(),
          errorCallbackURL: z.string().optional(),
          disableRedirect: z.boolean().optional(),
        }),
        responses: { 200: { description: "{url, redirect}" }, 404: { description: "Single sign-on is not configured" } },
      },
      "/sign-out": {
        tag: "accounts",
        summary:
          "Sign out (better-auth); audited as auth.sign_out. Signed in through the identity provider: answers its end-session URL ({url}) for RP-initiated logout",
        responses: { 200: { description: "Signed out" } },
      },
      "/change-password": {
        tag: "accounts",
        summary: "Change your own password (better-auth); audited as user.password_changed",
        body: z.object({ currentPassword: z.string(), newPassword: z.string(), revokeOtherSessions: z.boolean().optional() }),
        responses: {
          200: { description: "Changed" },
          400: { description: "The current password is wrong or the new one too short or too long" },
          ...notSignedIn,
        },
      },
      "/revoke-session": {
        tag: "accounts",
        summary: "End one of your sessions by its token (better-auth); audited as auth.session_revoked",
        body: z.object({ token: z.string() }),
        responses: { 200: { description: "Ended" }, ...notSignedIn },
      },
      "/revoke-sessions": {
        tag: "accounts",
        summary: "End all your sessions, this one included (better-auth); audited as auth.sessions_revoked",
        responses: { 200: { description: "Ended" }, ...notSignedIn },
      },
      "/revoke-other-sessions": {
        tag: "accounts",
        summary: "End all your sessions but this one (better-auth); audited as auth.other_sessions_revoked",
        responses: { 200: { description: "Ended" }, ...notSignedIn },
      },
    },
  },
);

/** Other methods: 405 with Allow, in JSON, like every other /api route (better-auth's own errors stay its own). */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
