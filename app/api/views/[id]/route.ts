import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { deleteView, updateView } from "@/lib/dead-letters/views/saved-views";
import { PatchViewBodySchema, ViewIdParamsSchema, SavedViewSchema } from "@/lib/dead-letters/contract/views";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** PATCH /api/views/{id} — rename, share/unshare, change filter, sort or columns (owner; admin for a shared view). */
export const PATCH = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: ViewIdParamsSchema,
    body: PatchViewBodySchema,
    openapi: {
      tag: "saved views",
      summary: "Rename, share or unshare, or change a view (its owner; an admin for a shared view; audited)",
      responses: {
        200: { description: "The view", schema: SavedViewSchema },
        403: { description: "Not yours to change" },
        404: { description: "No such record or view (someone else's personal view is not found either)" },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) =>
    updateView(getDb().pool, params.id, body, principal!, { actor: actorOf(principal!), requestId, now }),
);

/** DELETE /api/views/{id} — deletes a view (owner; admin for a shared view), audited as saved_view.deleted. */
export const DELETE = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: ViewIdParamsSchema,
    openapi: {
      tag: "saved views",
      summary: "Delete a view (its owner; an admin for a shared view; audited)",
      responses: {
        200: { description: "Deleted", schema: z.object({ deleted: z.string() }) },
        403: { description: "Not yours to delete" },
        404: { description: "No such record or view (someone else's personal view is not found either)" },
      },
    },
  },
  async ({ params, principal, requestId, now }) =>
    deleteView(getDb().pool, params.id, principal!, { actor: actorOf(principal!), requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, POST, PUT } = otherMethods("PATCH", "DELETE");
