import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { updateAlertRule } from "@/lib/ops/alerts/alert-rules";
import { AlertRuleParamsSchema, AlertRuleUpdateSchema } from "@/lib/forensics/forensics-schemas";

export const dynamic = "force-dynamic";

/** PATCH /api/alerts/{id} {name?, threshold?, windowMinutes?, enabled?, webhookUrl?} — supervisors edit a rule (audited). */
export const PATCH = defineRoute(
  {
    access: { permission: "alerts:manage" },
    params: AlertRuleParamsSchema,
    body: AlertRuleUpdateSchema,
    openapi: {
      tag: "forensics",
      summary: "Edit an alert rule (audited)",
      responses: { 200: { description: "The rule" }, 404: { description: "No such rule" } },
    },
  },
  async ({ params, body, principal, requestId, now }) =>
    updateAlertRule(getDb().pool, params.id, body, { actor: actorOf(principal!), requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, POST, PUT, DELETE } = otherMethods("PATCH");
