import type { Metadata } from "next";
import { AddSource } from "@/components/sources/add-source";
import { SourceList } from "@/components/sources/source-list";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { audienceOf, listSources } from "@/lib/sources/manage-sources";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Sources" };
export const dynamic = "force-dynamic";

export default async function SourcesPage() {
  const principal = await requirePagePrincipal("sources:read");
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const sources = await listSources(getDb().pool, now, audienceOf(principal.role), principal.scope);
  const canManage = can(principal.role, "sources:manage");
  return (
    <section aria-labelledby="sources-heading" className="space-y-3">
      <div className="flex items-start justify-between gap-4">
        <div className="max-w-3xl">
          <h1 id="sources-heading" className="text-lg font-semibold">
            Broker sources
          </h1>
          <p className="text-sm text-slate-600 dark:text-slate-300">
            Dead-letter queues, streams and groups Redrive pulls from. Workers pull each enabled source in the background; a pulled record
            keeps where it came from and can be replayed back there.
          </p>
        </div>
        {canManage && (
          <div className="shrink-0">
            <AddSource />
          </div>
        )}
      </div>
      <SourceList initial={forReader(sources)} renderedAt={now.getTime()} canManage={canManage} />
    </section>
  );
}
