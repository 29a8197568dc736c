import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { getRuleJob } from "@/lib/dead-letters/rules/rule-jobs";
import { RuleJobParamsSchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/** GET /api/rules/{id}/jobs/{jobId} — a dry run's or an apply's progress and counts. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: RuleJobParamsSchema,
    openapi: {
      tag: "rules",
      summary: "A dry run's or an apply's progress and counts",
      responses: { 200: { description: "The job" }, 404: { description: "No such job" } },
    },
  },
  async ({ params, principal }) => getRuleJob(getDb().pool, params.id, params.jobId, principal!.scope),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
