import { defineRoute, otherMethods } from "@/lib/api/handler";
import { can } from "@/lib/auth/permissions";
import { actorOf } from "@/lib/auth/principal";
import { IdParams } from "@/lib/auth/account-schemas";
import { revokeApiToken } from "@/lib/auth/tokens";
import { getDb } from "@/lib/db/client";

export const dynamic = "force-dynamic";

/** DELETE /api/tokens/{id} — revoke one of the caller's tokens; with tokens:manage (admins), anyone's. */
export const DELETE = defineRoute(
  {
    access: { permission: "tokens:own" },
    params: IdParams,
    openapi: {
      tag: "accounts",
      summary: "Revoke a token",
      responses: { 200: { description: "The revoked token" }, 404: { description: "No such token (or not yours)" } },
    },
  },
  async ({ params, principal, now, requestId }) => {
    const p = principal!;
    const ownerId = can(p.role, "tokens:manage") ? null : p.userId;
    return { token: await revokeApiToken(getDb().pool, { id: params.id, ownerId }, { actor: actorOf(p), now, requestId }) };
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, POST, PUT, PATCH } = otherMethods("DELETE");
