import type { Metadata } from "next";
import { AlertRules } from "@/components/forensics/alert-rules";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { alertsForScope, listAlertRules, recentAlertEvents } from "@/lib/ops/alerts/alert-rules";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Alerts" };
export const dynamic = "force-dynamic";

export default async function AlertsPage() {
  const principal = await requirePagePrincipal("dead_letters:read");
  const pool = getDb().pool;
  const canManage = can(principal.role, "alerts:manage");
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const { rules, events } = alertsForScope(
    principal.scope,
    ...(await Promise.all([listAlertRules(pool, canManage ? "whole" : "origin"), recentAlertEvents(pool)])),
  );
  return (
    <section aria-labelledby="alerts-heading" className="space-y-3">
      <h1 id="alerts-heading" className="text-lg font-semibold">
        Alerts
      </h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        Evaluated every minute; an alert fires once when its value goes above the threshold, is posted to the webhook, and resolves when the
        value is back at or below it.
      </p>
      <AlertRules initial={forReader({ rules, events })} renderedAt={now.getTime()} canManage={canManage} />
    </section>
  );
}
