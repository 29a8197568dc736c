import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { can } from "@/lib/auth/permissions";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { AlertRuleCreateSchema } from "@/lib/forensics/forensics-schemas";
import { listAlertRules, recentAlertEvents } from "@/lib/ops/alerts/alert-rules";
import { createAlertRule } from "@/lib/ops/alerts/change-alert-rule";

export const dynamic = "force-dynamic";

/**
 * GET /api/alerts — the rules (with the open event of a firing one) and the latest alert events, as the caller's
 * teams allow (lib/ops/alerts/alert-scope.ts). A webhook URL is a credential (a chat webhook's secret is its path):
 * whole for those who manage alerts, its origin for others.
 */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    openapi: {
      tag: "forensics",
      summary: "Alert rules and the latest alert events",
      description:
        "A user in teams sees their teams' rules with values and events, and the company-wide rules' names and thresholds " +
        "only (lastValue, lastEvaluatedAt and firing null: they count other teams' records). teamId null: company-wide.",
      responses: { 200: { description: "Rules and events" } },
    },
  },
  async ({ principal }) => {
    const pool = getDb().pool;
    const scope = principal!.scope;
    const webhooks = can(principal!.role, "alerts:manage") ? "whole" : "origin";
    const [rules, events] = await Promise.all([listAlertRules(pool, scope, webhooks), recentAlertEvents(pool, scope)]);
    return { rules, events };
  },
);

/** POST /api/alerts {teamId?, name, metric, threshold, windowMinutes?, enabled?, webhookUrl?, id?} — a new rule (audited). */
export const POST = defineRoute(
  {
    access: { permission: "alerts:manage" },
    body: AlertRuleCreateSchema,
    openapi: {
      tag: "forensics",
      summary: "Create an alert rule (audited)",
      description:
        "For a team (teamId; a supervisor in one team may leave it out), evaluated over that team's records; or company-wide " +
        "(teamId null), by a supervisor in no team. Copying a company-wide default for a team is this body with its metric, " +
        "threshold and window.",
      responses: {
        201: { description: "The rule" },
        409: { description: "A rule with that id exists" },
        422: { description: "A bad field, or a team not the caller's" },
      },
    },
  },
  async ({ body, principal, requestId, now }) =>
    answer(await createAlertRule(getDb().pool, body, { actor: actorOf(principal!), scope: principal!.scope, requestId, now }), {
      status: 201,
    }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
