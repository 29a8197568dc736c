import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { IdParams, PatchUserBody } from "@/lib/auth/account-schemas";
import { updateUser } from "@/lib/auth/users";
import { getDb } from "@/lib/db/client";

export const dynamic = "force-dynamic";

/** PATCH /api/users/{id} {role?, disabled?} — change a role, disable or enable (admins); audited with before/after. */
export const PATCH = defineRoute(
  {
    access: { permission: "users:manage" },
    params: IdParams,
    body: PatchUserBody,
    openapi: {
      tag: "accounts",
      summary: "Change a role, disable or enable",
      responses: {
        200: { description: "The account" },
        404: { description: "No such account" },
        409: { description: "It would leave no enabled admin" },
      },
    },
  },
  async ({ params, body, principal, now, requestId }) => ({
    user: await updateUser(getDb().pool, params.id, body, { actor: actorOf(principal!), now, requestId }),
  }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, POST, PUT, DELETE } = otherMethods("PATCH");
