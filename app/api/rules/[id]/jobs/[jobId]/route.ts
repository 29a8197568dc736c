import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { resumeRuleJob } from "@/lib/api/rule-routes";
import { pollRuleJob } from "@/lib/dead-letters/rules/rule-jobs";
import { RuleJobParamsSchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/** GET /api/rules/{id}/jobs/{jobId} — a dry run's or an apply's progress and counts; a job whose runner died is resumed by the poll. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: RuleJobParamsSchema,
    openapi: {
      tag: "rules",
      summary: "A dry run's or an apply's progress and counts",
      description:
        "A job whose runner stopped saving pages for 10 s (its server died or shut down) is resumed by this poll (or by any worker's housekeeping within seconds).",
      responses: { 200: { description: "The job" }, 404: { description: "No such job" } },
    },
  },
  async ({ params, now, principal }) => {
    const pool = getDb().pool;
    const { job, resume } = await pollRuleJob(pool, params.id, params.jobId, principal!.scope, now);
    if (resume) resumeRuleJob(pool, job);
    return job;
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
