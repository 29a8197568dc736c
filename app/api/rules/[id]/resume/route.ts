import { defineRoute, otherMethods } from "@/lib/api/handler";
import { ruleContext } from "@/lib/api/rule-routes";
import { getDb } from "@/lib/db/client";
import { resumeRule } from "@/lib/rules/rules";
import { RuleIdParamsSchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/** POST /api/rules/{id}/resume — a supervisor resumes the rule's standing replay its canary (or failures) paused. */
export const POST = defineRoute(
  {
    access: { permission: "replays:approve" },
    params: RuleIdParamsSchema,
    openapi: {
      tag: "rules",
      summary: "Resume the rule's paused standing replay: its canary watches again from now and the rule's canary alert resolves",
      responses: {
        200: { description: "The rule, its standing replay running" },
        404: { description: "No such rule" },
        409: { description: "Nothing of the rule's active version is paused" },
      },
    },
  },
  async ({ params, principal, requestId, now }) => resumeRule(getDb().pool, params.id, ruleContext(principal, requestId, now)),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
