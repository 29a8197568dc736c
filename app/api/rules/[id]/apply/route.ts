import { defineRoute, otherMethods } from "@/lib/api/handler";
import { RULE_JOB_RESPONSES } from "@/lib/rules/rule-schemas";
import { ruleContext, runRuleJobRoute } from "@/lib/api/rule-routes";
import { getDb } from "@/lib/db/client";
import { createRuleJob } from "@/lib/dead-letters/rules/rule-jobs";
import { ApplyRuleBodySchema, RuleIdParamsSchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/**
 * POST /api/rules/{id}/apply {version} — the active version decides the matching records stored now: 202 with the
 * job (its progress at GET /api/rules/{id}/jobs/{jobId}); each decision is audited with the rule as its actor.
 */
export const POST = defineRoute(
  {
    access: { permission: "replays:approve" },
    params: RuleIdParamsSchema,
    body: ApplyRuleBodySchema,
    openapi: {
      tag: "rules",
      summary: "Apply the active version to the matching records stored now (a job; each decision audited with the rule as actor)",
      responses: {
        ...RULE_JOB_RESPONSES,
        404: { description: "No such rule" },
        409: { description: "The rule is not active, or applies another version" },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) => {
    const pool = getDb().pool;
    const job = await createRuleJob(pool, params.id, { type: "apply", version: body.version }, ruleContext(principal, requestId, now));
    return runRuleJobRoute(pool, job, 0);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
