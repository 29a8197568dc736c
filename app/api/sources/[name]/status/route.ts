import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { assertSourceInScope, audienceOf } from "@/lib/sources/manage-sources";
import { sourceStatus } from "@/lib/sources/pull-now";
import { SourceNameParams } from "@/lib/sources/source-schemas";

export const dynamic = "force-dynamic";

/**
 * GET /api/sources/{name}/status — waiting in the broker, last pull, totals, last error: for read roles as the pullers
 * last recorded it (the error as a category); an admin's call asks the broker now (within a few seconds), unless the
 * source is backing off. 404 to a user in teams for a source their teams do not claim.
 */
export const GET = defineRoute(
  {
    access: { permission: "sources:read" },
    params: SourceNameParams,
    openapi: {
      tag: "sources",
      summary:
        "What waits in the broker, the last pull, totals and the last error: as the pullers recorded it (an admin's call asks the broker now, unless the source is backing off)",
      responses: { 200: { description: "The state" }, 404: { description: "No such source" } },
    },
  },
  async ({ params, now, principal }) => {
    assertSourceInScope(principal!.scope, params.name);
    return sourceStatus(getDb().pool, params.name, now, audienceOf(principal!.role));
  },
);

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
