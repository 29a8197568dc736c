import type { Metadata } from "next";
import { TriageList } from "@/components/dead-letters/list/triage-list";
import { can } from "@/lib/auth/permissions";
import { requirePagePrincipal } from "@/lib/api/page-principal";
import { getDb } from "@/lib/db/client";
import { facetCounts } from "@/lib/dead-letters/query/facets";
import { filterFromParams, filterKey, LIST_PAGE_SIZE } from "@/lib/dead-letters/query/filter-url";
import { listDeadLetters } from "@/lib/dead-letters/query/list";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskFacets, maskListPage } from "@/lib/dead-letters/query/mask-list";
import { forReader } from "@/lib/api/page-data";
import { redirect } from "next/navigation";
import { defaultViewFilter } from "@/lib/dead-letters/views/saved-views";

export const metadata: Metadata = { title: "Dead letters" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The first page and the counts are rendered on the server, so the list appears with the HTML; the rest pages in. */
export default async function DeadLettersPage({ searchParams }: { searchParams: SearchParams }) {
  const principal = await requirePagePrincipal("dead_letters:read");
  const params = new URLSearchParams();
  const given = await searchParams;
  for (const [k, v] of Object.entries(given)) for (const one of Array.isArray(v) ? v : v ? [v] : []) params.append(k, one);
  // No query at all: the reader's default view, if any (`?all` asks for every record, default or not).
  if (Object.keys(given).length === 0) {
    const preset = await defaultViewFilter(getDb().pool, principal.userId);
    if (preset) redirect(`/dead-letters?${preset}`);
  }
  const { filter } = filterFromParams(params);
  const pool = getDb().pool;
  // Before reading: the client refetches what is older than this (initialDataUpdatedAt).
  const now = new Date();
  const [page, facets] = await Promise.all([
    listDeadLetters(pool, { ...filter, limit: LIST_PAGE_SIZE, order: "desc" }),
    facetCounts(pool, filter),
  ]);
  const rules = configuredMaskRules();
  return (
    <TriageList
      initial={{
        // The filter's key is the reader's own URL, not stored data: masked, a search for a key holding a
        // Luhn-valid digit run no longer matched the browser's and the list showed the masked text and nothing.
        key: filterKey(filter),
        ...forReader({ page: maskListPage(page, rules), facets: maskFacets(facets, rules), renderedAt: now.getTime() }),
      }}
      canTriage={can(principal.role, "dead_letters:triage")}
      canUnmask={can(principal.role, "dead_letters:unmask")}
      canReplay={can(principal.role, "replays:manage")}
    />
  );
}
