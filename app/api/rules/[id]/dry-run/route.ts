import { defineRoute, otherMethods } from "@/lib/api/handler";
import { RULE_JOB_RESPONSES } from "@/lib/rules/rule-schemas";
import { DRY_RUN_INLINE_MS, ruleContext, runRuleJobRoute } from "@/lib/api/rule-routes";
import { getDb } from "@/lib/db/client";
import { createRuleJob } from "@/lib/dead-letters/rules/rule-jobs";
import { getRule } from "@/lib/rules/rules";
import { sinkNeedsOrigin } from "@/lib/replay/sinks/registry";
import { DryRunBodySchema, RuleIdParamsSchema } from "@/lib/rules/rule-schemas";

export const dynamic = "force-dynamic";

/**
 * POST /api/rules/{id}/dry-run {match?, action?, sink?} — what the rule (its latest version, or the editor's unsaved
 * match, action and standing replay sink) would do to the records stored now: 200 with the counts, or 202 with a job
 * past one second. A standing replay back to origin also counts the approvals that cannot go back.
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
      description:
        "Counts decided and skipped (grouped by reason), samples of each, and the area change distribution of approvals; for a standing " +
        "replay back to origin, notReplayableToOrigin: the approvals that cannot go back (no broker source, or a destination their " +
        "source does not allow), as a batch back to origin would leave out or refuse them (null otherwise).",
      responses: { ...RULE_JOB_RESPONSES, 404: { description: "No such rule" } },
    },
  },
  async ({ params, body, principal, requestId, now }) => {
    const pool = getDb().pool;
    const ctx = ruleContext(principal, requestId, now);
    const rule = await getRule(pool, params.id, now, ctx.scope, ctx.standing);
    const edited = body.match !== undefined || body.action !== undefined || body.sink !== undefined;
    const sink = body.sink !== undefined ? body.sink : (rule.replay?.sink.type ?? null);
    const job = await createRuleJob(
      pool,
      params.id,
      {
        type: "dry_run",
        match: body.match ?? rule.match,
        action: body.action ?? rule.action,
        version: edited ? null : rule.version,
        toOrigin: sinkNeedsOrigin(sink),
      },
      ctx,
    );
    return runRuleJobRoute(pool, job, DRY_RUN_INLINE_MS);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
