import type { Metadata } from "next";
import Link from "next/link";
import { BatchList } from "@/components/replay/batch-list";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { listBatches } from "@/lib/replay/batch/read-batches";
import { forReader } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Replays" };
export const dynamic = "force-dynamic";

export default async function ReplaysPage() {
  const principal = await requirePagePrincipal("replays:read");
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const batches = await listBatches(getDb().pool, principal.scope, { limit: 50 }, now);
  const canManage = can(principal.role, "replays:manage");
  return (
    <section aria-labelledby="replays-heading" className="space-y-3">
      <div className="flex items-baseline justify-between">
        <h1 id="replays-heading" className="text-lg font-semibold">
          Replay batches
        </h1>
        {canManage && (
          <Link
            href="/replays/new?status=approved"
            className="rounded bg-slate-900 dark:bg-slate-100 px-3 py-1.5 text-sm font-medium text-white dark:text-slate-900 hover:bg-slate-700 dark:hover:bg-slate-300"
          >
            New batch
          </Link>
        )}
      </div>
      <BatchList initial={forReader(batches)} renderedAt={now.getTime()} canManage={canManage} />
    </section>
  );
}
