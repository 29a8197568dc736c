import type { Metadata } from "next";
import { TriageList } from "@/components/dead-letters/list/triage-list";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { filterFromParams } from "@/lib/dead-letters/filter-url";
import { firstListPage } from "@/lib/dead-letters/query/first-list-page";
import { forReader } from "@/lib/api/page-data";
import { redirect } from "next/navigation";
import { defaultViewQuery } from "@/lib/dead-letters/views/saved-views";

export const metadata: Metadata = { title: "Dead letters" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The first page and the counts are rendered on the server, so the list appears with the HTML; the rest pages in. */
export default async function DeadLettersPage({ searchParams }: { searchParams: SearchParams }) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const params = new URLSearchParams();
  const given = await searchParams;
  for (const [k, v] of Object.entries(given)) for (const one of Array.isArray(v) ? v : v ? [v] : []) params.append(k, one);
  // No query at all: the reader's default view (its filter and columns), if any (`?all` asks for every record,
  // default or not).
  if (Object.keys(given).length === 0) {
    const preset = await defaultViewQuery(getDb().pool, principal);
    if (preset) redirect(`/dead-letters?${preset}`);
  }
  const { filter } = filterFromParams(params);
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const first = await firstListPage(getDb().pool, principal.scope, filter, new Date());
  return (
    <TriageList
      initial={{ ...first, ...forReader({ page: first.page, facets: first.facets }) }}
      canTriage={can(principal.role, "dead_letters:triage")}
      canUnmask={can(principal.role, "dead_letters:unmask")}
      canReplay={can(principal.role, "replays:manage")}
    />
  );
}
