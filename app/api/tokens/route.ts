import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { AppError } from "@/lib/errors/app-error";
import { can } from "@/lib/auth/permissions";
import { CreateTokenBody, ListTokensQuery } from "@/lib/auth/account-schemas";
import { createApiToken, listAllApiTokens, listApiTokens } from "@/lib/auth/tokens";
import { getDb } from "@/lib/db/client";

export const dynamic = "force-dynamic";

/** GET /api/tokens[?all=1] — the caller's own API tokens, revoked ones included; all=1: every user's (admins). */
export const GET = defineRoute(
  {
    access: { permission: "tokens:own" },
    query: ListTokensQuery,
    openapi: {
      tag: "accounts",
      summary: "The caller's API tokens; all=1: every user's (admins, tokens:manage)",
      responses: { 200: { description: "{ tokens }" } },
    },
  },
  async ({ principal, query }) => {
    if (!query.all) return { tokens: await listApiTokens(getDb().pool, principal!.userId) };
    if (!can(principal!.role, "tokens:manage")) {
      throw new AppError("forbidden", `role ${principal!.role} lacks permission tokens:manage (needed for all=1)`, {
        details: { permission: "tokens:manage" },
      });
    }
    return { tokens: await listAllApiTokens(getDb().pool) };
  },
);

/**
 * POST /api/tokens {name} — a new token for the caller; the token is in this response and nowhere else. Signed in
 * only: a token that could mint tokens would let a leaked one outlive its revocation through its children.
 */
export const POST = defineRoute(
  {
    access: { permission: "tokens:own" },
    body: CreateTokenBody,
    // The token is shown once, exactly as made: the masking pass must not touch it.
    clearAnswer: true,
    openapi: {
      tag: "accounts",
      summary: "Create an API token (shown once)",
      description: "With a session only: a request authenticated by another API token is refused (403).",
      responses: { 201: { description: "The token" } },
    },
  },
  async ({ body, principal, now, requestId }) => {
    if (principal!.via !== "session") {
      throw new AppError("forbidden", "API tokens are created signed in (Settings) or with `redrive token create`, not with another token");
    }
    const created = await createApiToken(
      getDb().pool,
      { userId: principal!.userId, name: body.name },
      { actor: actorOf(principal!), now, requestId },
    );
    return answer(created, { status: 201 });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
