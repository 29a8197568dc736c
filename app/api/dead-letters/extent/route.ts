import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { matchingExtent } from "@/lib/dead-letters/query/extent";
import { ListFilterSchema } from "@/lib/dead-letters/filters";
import { ExtentSchema } from "@/lib/dead-letters/contract/map";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/extent?<filters> — the box of the matching spatial records (the list map fits to it). */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    query: ListFilterSchema,
    openapi: {
      tag: "dead letters",
      summary: "Where the matching spatial records are: the box the list map fits to",
      description: "The list's filters apart from bbox (the map's own view).",
      responses: { 200: { description: "The extent", schema: ExtentSchema } },
    },
  },
  async ({ query, principal }) => matchingExtent(getDb().pool, principal!.scope, query),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
