import { getDb } from "@/lib/db/client";
import { assertRecordVisible } from "@/lib/dead-letters/query/visible-record";
import { defineRoute, otherMethods } from "@/lib/api/handler";
import { answerOffThread } from "@/lib/api/off-thread-reads";
import { configuredMaskRules } from "@/lib/masking/config";
import { IdParamsSchema } from "@/lib/dead-letters/contract/record-id";
import { RepairPreviewQuerySchema, RepairPreviewSchema } from "@/lib/dead-letters/contract/repair-preview";

export const dynamic = "force-dynamic";

/**
 * GET /api/dead-letters/{id}/repair-preview[?method=&policy=] — what approving this spatial record with that repair
 * (default: its source's) would replay: the analysis, the geometry, its digest, and the warnings to acknowledge.
 * Read, repaired and serialized off this thread (lib/api/off-thread-reads.ts).
 */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: IdParamsSchema,
    query: RepairPreviewQuerySchema,
    openapi: {
      tag: "dead letters",
      summary: "What approving a spatial record with a repair (method, policy) would replay",
      description:
        "Default: the record's source's method and policy. Send the answer's method, policy and digest with the approval (repair) to pin exactly this result: a replay sends nothing else.",
      responses: {
        200: { description: "The repair's analysis, geometry, digest and warnings", schema: RepairPreviewSchema },
        404: { description: "No such record" },
      },
    },
  },
  async ({ params, query, principal }) => {
    await assertRecordVisible(getDb().pool, principal!.scope, params.id);
    return answerOffThread("repairPreview", { id: params.id, ...query, rules: configuredMaskRules() });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
