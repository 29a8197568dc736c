import { defineRoute, otherMethods } from "@/lib/api/handler";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { sourceStatus } from "@/lib/sources/pull-now";
import { SourceNameParams } from "@/lib/sources/source-schemas";

export const dynamic = "force-dynamic";

/**
 * GET /api/sources/{name}/status — waiting in the broker, last pull, totals, last error: for read roles as the pullers
 * last recorded it; an admin's call asks the broker now (within a few seconds), unless the source is backing off.
 */
export const GET = defineRoute({ access: { permission: "sources:read" }, params: SourceNameParams }, async ({ params, now, principal }) =>
  sourceStatus(getDb().pool, params.name, now, can(principal!.role, "sources:manage")),
);

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
