import { defineRoute, otherMethods } from "@/lib/api/handler";
import { RULE_JOB_RESPONSES } from "@/lib/rules/rule-schemas";
import { DRY_RUN_INLINE_MS, ruleContext, runRuleJobRoute } from "@/lib/api/rule-routes";
import { getDb } from "@/lib/db/client";
import { createRuleJob } from "@/lib/dead-letters/rules/rule-jobs";
import { getRule } from "@/lib/rules/rules";
import { DryRunBodySchema, RuleIdParamsSchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/**
 * POST /api/rules/{id}/dry-run {match?, action?} — what the rule (its latest version, or the editor's unsaved match
 * and action) would do to the records stored now: 200 with the counts, or 202 with a job past one second.
 */
export const POST = defineRoute(
  {
    access: { permission: "replays:approve" },
    params: RuleIdParamsSchema,
    body: DryRunBodySchema,
    bodyOptional: true,
    openapi: {
      tag: "rules",
      summary: "What the rule (or the editor's unsaved match and action) would do to the records stored now",
      description: "Counts decided and skipped (grouped by reason), samples of each, and the area change distribution of approvals.",
      responses: { ...RULE_JOB_RESPONSES, 404: { description: "No such rule" } },
    },
  },
  async ({ params, body, principal, requestId, now }) => {
    const pool = getDb().pool;
    const ctx = ruleContext(principal, requestId, now);
    const rule = await getRule(pool, params.id, now, ctx.scope, ctx.standing);
    const edited = body.match !== undefined || body.action !== undefined;
    const job = await createRuleJob(
      pool,
      params.id,
      { type: "dry_run", match: body.match ?? rule.match, action: body.action ?? rule.action, version: edited ? null : rule.version },
      ctx,
    );
    return runRuleJobRoute(pool, job, DRY_RUN_INLINE_MS);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
