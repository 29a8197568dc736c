import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { GroupDetail } from "@/components/groups/group-detail";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { forReader } from "@/lib/api/page-data";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors/app-error";
import { filterFromParams } from "@/lib/dead-letters/filter-url";
import { firstListPage } from "@/lib/dead-letters/query/first-list-page";
import { GroupIdSchema } from "@/lib/dead-letters/contract/groups";
import { assignableOwners, getGroup } from "@/lib/dead-letters/groups/read-groups";

export const metadata: Metadata = { title: "Failure group" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The group's state and notes, and its records in the list (first page rendered here, like /dead-letters). */
export default async function GroupPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: SearchParams }) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const id = GroupIdSchema.safeParse((await params).id);
  if (!id.success) notFound();
  const now = new Date();
  const pool = getDb().pool;
  const canTriage = can(principal.role, "dead_letters:triage");
  const group = await getGroup(pool, principal.scope, id.data, now).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) for (const one of Array.isArray(v) ? v : v ? [v] : []) query.append(k, one);
  // The URL's filters narrow within the group: its source and reason always apply.
  const filter = { ...filterFromParams(query).filter, source: [group.source], reason: group.reasonGroup };
  const [owners, first] = await Promise.all([
    canTriage ? assignableOwners(pool, id.data, now) : Promise.resolve([]),
    firstListPage(pool, principal.scope, filter, now),
  ]);
  return (
    <section aria-labelledby="group-heading">
      <GroupDetail
        initial={forReader(group)}
        renderedAt={now.getTime()}
        owners={forReader(owners)}
        list={{ ...first, ...forReader({ page: first.page, facets: first.facets }) }}
        canTriage={canTriage}
        canUnmask={can(principal.role, "dead_letters:unmask")}
        canReplay={can(principal.role, "replays:manage")}
      />
    </section>
  );
}
