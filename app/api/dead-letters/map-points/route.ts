import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { mapPoints } from "@/lib/dead-letters/query/map-points";
import { MapPointsQuerySchema } from "@/lib/dead-letters/contract/map";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/map-points?<filters>&bbox=<view>&zoom=z — record centres, or grid cells when many. */
export const GET = defineRoute({ access: { permission: "dead_letters:read" }, query: MapPointsQuerySchema }, async ({ query }) => {
  const { zoom, ...filter } = query;
  return mapPoints(getDb().pool, filter, zoom);
});

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
