import "server-only";
import type pg from "pg";
import type { RecordScope } from "../../scope/record-scope";
import type { ListFilter } from "../filters";
import { configuredMaskRules } from "../../masking/config";
import { facetCounts } from "./facets";
import { filterKey, LIST_PAGE_SIZE } from "../filter-url";
import type { ListPage } from "../contract/list";
import { listDeadLetters } from "./list";
import { maskFacets, maskListPage } from "./mask-list";
import type { Facets } from "../contract/facets";

// The list's first page and counts for a filter, masked, read on the server so the list comes with the HTML
// (/dead-letters, and a failure group's page with the group's filter); the rest pages in from the browser.

export interface FirstListPage {
  /** the filter's key (filterKey): the reader's own URL, not stored data, so not masked */
  key: string;
  page: ListPage;
  facets: Facets;
  /** when it was read: the browser refetches what is older (initialDataUpdatedAt) */
  renderedAt: number;
}

export async function firstListPage(pool: pg.Pool, scope: RecordScope, filter: ListFilter, now: Date): Promise<FirstListPage> {
  const [page, facets] = await Promise.all([
    listDeadLetters(pool, scope, { ...filter, limit: LIST_PAGE_SIZE, order: "desc" }),
    facetCounts(pool, scope, filter),
  ]);
  const rules = configuredMaskRules();
  // The key is computed from the filter as given: masked, a search for a key holding a Luhn-valid digit run no
  // longer matched the browser's and the list showed the masked text and nothing.
  return { key: filterKey(filter), page: maskListPage(page, rules), facets: maskFacets(facets, rules), renderedAt: now.getTime() };
}
