import type { Metadata } from "next";
import { AlertRules } from "@/components/forensics/alert-rules";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { alertTeams, listAlertRules, recentAlertEvents } from "@/lib/ops/alerts/alert-rules";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Alerts" };
export const dynamic = "force-dynamic";

export default async function AlertsPage() {
  const principal = await requirePagePrincipal("dead_letters:read");
  const pool = getDb().pool;
  const canManage = can(principal.role, "alerts:manage");
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const [rules, events, teams] = await Promise.all([
    listAlertRules(pool, principal.scope, canManage ? "whole" : "origin"),
    recentAlertEvents(pool, principal.scope),
    canManage ? alertTeams(pool, principal.scope) : [],
  ]);
  return (
    <section aria-labelledby="alerts-heading" className="space-y-3">
      <h1 id="alerts-heading" className="text-lg font-semibold">
        Alerts
      </h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        Evaluated every minute; an alert fires once when its value goes above the threshold, is posted to the webhook, and resolves when the
        value is back at or below it. A team&apos;s rule counts that team&apos;s records only; a company-wide rule counts every record
        {principal.scope.all
          ? ""
          : " (its value and alerts are shown to supervisors in no team, except an alert about a triage rule of your teams)"}
        .
      </p>
      <AlertRules
        initial={forReader({ rules, events })}
        renderedAt={now.getTime()}
        canManage={canManage}
        scoped={!principal.scope.all}
        teams={teams}
      />
    </section>
  );
}
