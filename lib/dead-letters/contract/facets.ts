import { z } from "zod";

// GET /api/dead-letters/facets: the counts beside the list, per kind, status, class, source and reason group.

export const FacetBucketSchema = z.object({ value: z.string(), count: z.number().int() });
export type FacetBucket = z.infer<typeof FacetBucketSchema>;

export const FacetsSchema = z
  .object({
    total: z.number().int(),
    /** false when counts were estimated from a sample (very large matches); bulk actions recount exactly */
    exact: z.boolean(),
    kind: z.array(FacetBucketSchema),
    status: z.array(FacetBucketSchema),
    class: z.array(FacetBucketSchema),
    source: z.array(FacetBucketSchema),
    /** reason groups, largest first (top 50) */
    reason: z.array(FacetBucketSchema),
  })
  .meta({ id: "Facets" });
export type Facets = z.infer<typeof FacetsSchema>;
