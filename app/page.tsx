import type { Metadata } from "next";
import { OverviewDashboard } from "@/components/forensics/overview-dashboard";
import { MentionsPanel } from "@/components/notes/mentions-panel";
import { SavedViewsPanel } from "@/components/views/saved-views-panel";
import { redirect } from "next/navigation";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { healthOverview, maskOverview } from "@/lib/ops/overview";
import { configuredMaskRules } from "@/lib/masking/config";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "DLQ health" };
export const dynamic = "force-dynamic";

export default async function Home() {
  const me = await requirePagePrincipal();
  // A producer reads only what it sent: its own view (records, endpoints, tokens). Anyone else without the list
  // has its API tokens (every role has tokens:own).
  if (!can(me.role, "dead_letters:read")) redirect(can(me.role, "dead_letters:read_own") ? "/producer" : "/settings");
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const overview = forReader(maskOverview(await healthOverview(getDb().pool, me.scope, now), configuredMaskRules()));
  return (
    <section aria-labelledby="health-heading" className="space-y-3">
      <h1 id="health-heading" className="text-lg font-semibold">
        DLQ health
      </h1>
      <OverviewDashboard initial={JSON.parse(JSON.stringify(overview)) as typeof overview} renderedAt={now.getTime()} />
      <div className="grid gap-3 md:grid-cols-2">
        <SavedViewsPanel />
        <MentionsPanel />
      </div>
    </section>
  );
}
