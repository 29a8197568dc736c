import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { facetCounts } from "@/lib/dead-letters/query/facets";
import { ListFilterSchema } from "@/lib/dead-letters/filters";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskFacets } from "@/lib/dead-letters/query/mask-list";
import { FacetsSchema } from "@/lib/dead-letters/contract/facets";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/facets?<filters> — counts by kind, status, class, source and reason group. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    query: ListFilterSchema,
    openapi: {
      tag: "dead letters",
      summary: "Counts by kind, status, class, source and reason group",
      description:
        "Each facet is counted with the other facets' selections applied, not its own. `exact` is false when a very large viewport or search was estimated from a sample.",
      responses: { 200: { description: "Facet counts", schema: FacetsSchema } },
    },
  },
  async ({ query, principal }) => maskFacets(await facetCounts(getDb().pool, principal!.scope, query), configuredMaskRules()),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
