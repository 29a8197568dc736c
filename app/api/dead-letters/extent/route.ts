import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { matchingExtent } from "@/lib/dead-letters/query/extent";
import { ListFilterSchema } from "@/lib/dead-letters/filters";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/extent?<filters> — the box of the matching spatial records (the list map fits to it). */
export const GET = defineRoute({ access: { permission: "dead_letters:read" }, query: ListFilterSchema }, async ({ query }) =>
  matchingExtent(getDb().pool, query),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
