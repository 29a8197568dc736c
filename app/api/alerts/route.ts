import { defineRoute, otherMethods } from "@/lib/api/handler";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { alertsForScope, listAlertRules, recentAlertEvents } from "@/lib/ops/alerts/alert-rules";

export const dynamic = "force-dynamic";

/**
 * GET /api/alerts — the rules (with the open event of a firing one) and the latest alert events. A webhook URL is
 * a credential (a chat webhook's secret is its path): whole for those who manage alerts, its origin for others.
 */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    openapi: {
      tag: "forensics",
      summary: "Alert rules and the latest alert events",
      responses: { 200: { description: "Rules and events" } },
    },
  },
  async ({ principal }) => {
    const pool = getDb().pool;
    const webhooks = can(principal!.role, "alerts:manage") ? "whole" : "origin";
    const [rules, events] = await Promise.all([listAlertRules(pool, webhooks), recentAlertEvents(pool)]);
    return alertsForScope(principal!.scope, rules, events);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
