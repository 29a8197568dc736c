import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { deleteView, updateView } from "@/lib/dead-letters/views/saved-views";
import { PatchViewBodySchema, ViewIdParamsSchema } from "@/lib/dead-letters/views/view-schemas";

export const dynamic = "force-dynamic";

/** PATCH /api/views/{id} — rename, share/unshare, change filter, sort or columns (owner; admin for a shared view). */
export const PATCH = defineRoute(
  { access: { permission: "dead_letters:read" }, params: ViewIdParamsSchema, body: PatchViewBodySchema },
  async ({ params, body, principal, requestId, now }) =>
    updateView(getDb().pool, params.id, body, principal!, { actor: actorOf(principal!), requestId, now }),
);

/** DELETE /api/views/{id} — deletes a view (owner; admin for a shared view), audited as saved_view.deleted. */
export const DELETE = defineRoute(
  { access: { permission: "dead_letters:read" }, params: ViewIdParamsSchema },
  async ({ params, principal, requestId, now }) =>
    deleteView(getDb().pool, params.id, principal!, { actor: actorOf(principal!), requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, POST, PUT } = otherMethods("PATCH", "DELETE");
