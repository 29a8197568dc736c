import { defineRoute, json, otherMethods } from "@/lib/api/handler";
import { ruleContext } from "@/lib/api/rule-routes";
import { getDb } from "@/lib/db/client";
import { createRule, listRules } from "@/lib/rules/rules";
import { CreateRuleBodySchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/** GET /api/rules — every triage rule with its latest version and stats. */
export const GET = defineRoute({ access: { permission: "dead_letters:read" } }, async ({ now }) => ({
  rules: await listRules(getDb().pool, now),
}));

/** POST /api/rules — a rule's first version: 201 with the rule, a draft until a second supervisor approves it. */
export const POST = defineRoute(
  { access: { permission: "replays:approve" }, body: CreateRuleBodySchema },
  async ({ body, principal, requestId, now }) =>
    json(await createRule(getDb().pool, body, ruleContext(principal, requestId, now)), { status: 201 }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
