import { defineRoute, otherMethods } from "@/lib/api/handler";
import { ruleContext } from "@/lib/api/rule-routes";
import { getDb } from "@/lib/db/client";
import { STANDING_REPLAY } from "@/lib/replay/batch/standing-rules";
import { getRule, patchRule } from "@/lib/rules/rules";
import { PatchRuleBodySchema, RuleIdParamsSchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/** GET /api/rules/{id} — the rule with every version (who drafted and approved each) and its stats. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: RuleIdParamsSchema,
    openapi: {
      tag: "rules",
      summary: "One rule with every version (who drafted and approved each, its replay's sink and rate), its stats and standing replay",
      responses: { 200: { description: "The rule" }, 404: { description: "No such rule" } },
    },
  },
  async ({ params, principal, now }) => getRule(getDb().pool, params.id, now, principal!.scope, STANDING_REPLAY),
);

/**
 * PATCH /api/rules/{id} — `{enabled: false}`: the kill switch (supervisors and admins), at once; `{enabled: true}` or
 * a change of match, action or replay: a new version, inactive until a second supervisor approves it.
 */
export const PATCH = defineRoute(
  {
    access: { permission: "rules:disable" },
    params: RuleIdParamsSchema,
    body: PatchRuleBodySchema,
    openapi: {
      tag: "rules",
      summary: "Kill switch ({enabled: false}, at once), or a new version (a change, or {enabled: true}) awaiting approval",
      description:
        "A change of match, action or `replay` ({sink, ratePerSecond, canary?}, or null to drop it) is a new version, inactive until a " +
        "second supervisor approves it; the kill switch also pauses the rule's running standing replay.",
      responses: {
        200: { description: "The rule" },
        404: { description: "No such rule" },
        409: { description: "Enabling a draft (it waits for approval already)" },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) => patchRule(getDb().pool, params.id, body, ruleContext(principal, requestId, now)),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, DELETE } = otherMethods("GET", "PATCH");
