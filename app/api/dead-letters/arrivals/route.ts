import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { countArrivals } from "@/lib/dead-letters/query/arrivals";
import { ArrivalsQuerySchema } from "@/lib/dead-letters/contract/list";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/arrivals?<filters>&after=<watermark> — how many matching records arrived since (capped). */
export const GET = defineRoute({ access: { permission: "dead_letters:read" }, query: ArrivalsQuerySchema }, async ({ query }) => {
  const { after, ...filter } = query;
  return countArrivals(getDb().pool, filter, after);
});

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
