import { defineRoute, otherMethods } from "@/lib/api/handler";
import { ruleContext } from "@/lib/api/rule-routes";
import { getDb } from "@/lib/db/client";
import { approveRule } from "@/lib/rules/rules";
import { ApproveRuleBodySchema, RuleIdParamsSchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/** POST /api/rules/{id}/approve {version} — a second supervisor approves exactly that version: the rule is active. */
export const POST = defineRoute(
  {
    access: { permission: "replays:approve" },
    params: RuleIdParamsSchema,
    body: ApproveRuleBodySchema,
    openapi: {
      tag: "rules",
      summary: "Approve exactly the version reviewed (four eyes: not its drafter); the rule becomes active",
      description:
        "A version with a `replay` opens its standing replay batch here: created approved (its approvers are the version's drafter and " +
        "approver) and running at the version's rate.",
      responses: {
        200: { description: "The rule, active" },
        404: { description: "No such rule" },
        409: { description: "Another version is the latest, or nothing waits" },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) =>
    approveRule(getDb().pool, params.id, body.version, ruleContext(principal, requestId, now)),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
