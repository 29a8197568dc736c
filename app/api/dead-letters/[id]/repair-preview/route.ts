import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { repairPreview } from "@/lib/dead-letters/triage/repair-preview";
import { IdParamsSchema, RepairPreviewQuerySchema } from "@/lib/dead-letters/record-schemas";

export const dynamic = "force-dynamic";

/**
 * GET /api/dead-letters/{id}/repair-preview[?method=&policy=] — what approving this spatial record with that repair
 * (default: its source's) would replay: the analysis, the geometry, its digest, and the warnings to acknowledge.
 */
export const GET = defineRoute(
  { access: { permission: "dead_letters:read" }, params: IdParamsSchema, query: RepairPreviewQuerySchema },
  async ({ params, query }) => repairPreview(getDb().pool, params.id, query),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
