import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { deleteAlertRule, updateAlertRule } from "@/lib/ops/alerts/change-alert-rule";
import { AlertRuleParamsSchema, AlertRuleUpdateSchema } from "@/lib/forensics/forensics-schemas";
import { z } from "zod";

export const dynamic = "force-dynamic";

/**
 * PATCH /api/alerts/{id} {name?, threshold?, windowMinutes?, enabled?, webhookUrl?} — supervisors edit a rule (audited):
 * a team's supervisors their team's rules, supervisors in no team every rule.
 */
export const PATCH = defineRoute(
  {
    access: { permission: "alerts:manage" },
    params: AlertRuleParamsSchema,
    body: AlertRuleUpdateSchema,
    openapi: {
      tag: "forensics",
      summary: "Edit an alert rule (audited)",
      responses: {
        200: { description: "The rule" },
        403: { description: "A company-wide rule, and the caller is in teams" },
        404: { description: "No such rule, or another team's" },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) =>
    updateAlertRule(getDb().pool, params.id, body, { actor: actorOf(principal!), scope: principal!.scope, requestId, now }),
);

/** DELETE /api/alerts/{id} — remove a team's rule (audited); a company-wide rule is disabled instead. */
export const DELETE = defineRoute(
  {
    access: { permission: "alerts:manage" },
    params: AlertRuleParamsSchema,
    openapi: {
      tag: "forensics",
      summary: "Remove a team's alert rule (audited)",
      responses: {
        200: { description: "Removed", schema: z.object({ deleted: z.literal(true) }) },
        403: { description: "A company-wide rule, and the caller is in teams" },
        404: { description: "No such rule, or another team's" },
        409: { description: "A company-wide rule: disable it instead" },
      },
    },
  },
  async ({ params, principal, requestId, now }) => {
    await deleteAlertRule(getDb().pool, params.id, { actor: actorOf(principal!), scope: principal!.scope, requestId, now });
    return { deleted: true as const };
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, POST, PUT } = otherMethods("PATCH", "DELETE");
