import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { countArrivals } from "@/lib/dead-letters/query/arrivals";
import { ArrivalsQuerySchema, ArrivalsSchema } from "@/lib/dead-letters/contract/list";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/arrivals?<filters>&after=<watermark> — how many matching records arrived since (capped). */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    query: ArrivalsQuerySchema,
    openapi: {
      tag: "dead letters",
      summary: 'How many matching records arrived since a watermark: the list\'s "N new" banner',
      description:
        "Without `after`, only the current watermark. With it, the records matching the filters whose id is above it (ids follow insertion), counted up to `cap`: cheap whatever the filter matches in all.",
      responses: { 200: { description: "The count since the watermark", schema: ArrivalsSchema } },
    },
  },
  async ({ query, principal }) => {
    const { after, ...filter } = query;
    return countArrivals(getDb().pool, principal!.scope, filter, after);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
