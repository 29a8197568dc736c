import type { Metadata } from "next";
import { GroupList } from "@/components/groups/group-list";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { forReader } from "@/lib/api/page-data";
import { getDb } from "@/lib/db/client";
import { GroupListQuerySchema } from "@/lib/dead-letters/contract/groups";
import { listGroups } from "@/lib/dead-letters/groups/read-groups";

export const metadata: Metadata = { title: "Failure groups" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function GroupsPage({ searchParams }: { searchParams: SearchParams }) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const sp = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  // A bad sort or status in the URL shows the default list rather than an error page.
  const parsed = GroupListQuerySchema.safeParse({ sort: one(sp.sort), status: one(sp.status) });
  const query = parsed.success ? parsed.data : GroupListQuerySchema.parse({});
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const groups = forReader(await listGroups(getDb().pool, principal.scope, query, now));
  return (
    <section aria-labelledby="groups-heading" className="space-y-3">
      <h1 id="groups-heading" className="text-lg font-semibold">
        Failure groups
      </h1>
      <GroupList initial={groups} initialSort={query.sort} initialStatus={query.status?.join(",") ?? ""} renderedAt={now.getTime()} />
    </section>
  );
}
