import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { setDefaultView } from "@/lib/dead-letters/views/saved-views";
import { DefaultViewBodySchema } from "@/lib/dead-letters/contract/views";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** PUT /api/views/default {viewId | null} — the view /dead-letters opens with for the caller (audited). */
export const PUT = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    body: DefaultViewBodySchema,
    openapi: {
      tag: "saved views",
      summary: "Your default view: /dead-letters without a filter opens it (null: none; audited)",
      responses: {
        200: { description: "Set", schema: z.object({ viewId: z.string().nullable() }) },
        404: { description: "No such record or view (someone else's personal view is not found either)" },
      },
    },
  },
  async ({ body, principal, requestId, now }) =>
    setDefaultView(getDb().pool, body.viewId, principal!, { actor: actorOf(principal!), requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, POST, PATCH, DELETE } = otherMethods("PUT");
