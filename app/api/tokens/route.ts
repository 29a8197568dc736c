import { defineRoute } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { CreateTokenBody } from "@/lib/auth/schemas";
import { createApiToken, listApiTokens } from "@/lib/auth/tokens";
import { getDb } from "@/lib/db/client";

export const dynamic = "force-dynamic";

/** GET /api/tokens — the caller's own API tokens, revoked ones included. */
export const GET = defineRoute({ access: { permission: "tokens:own" } }, async ({ principal }) => ({
  tokens: await listApiTokens(getDb().pool, principal!.userId),
}));

/** POST /api/tokens {name} — a new token for the caller; the token is in this response and nowhere else. */
export const POST = defineRoute({ access: { permission: "tokens:own" }, body: CreateTokenBody }, async ({ body, principal, now, requestId }) => {
  const created = await createApiToken(getDb().pool, { userId: principal!.userId, name: body.name }, { actor: actorOf(principal!), now, requestId });
  return Response.json(created, { status: 201, headers: { "cache-control": "no-store" } });
});
