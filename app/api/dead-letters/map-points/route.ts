import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { mapPoints } from "@/lib/dead-letters/query/map-points";
import { MapPointsQuerySchema, MapPointsSchema } from "@/lib/dead-letters/contract/map";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/map-points?<filters>&bbox=<view>&zoom=z — record centres, or grid cells when many. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    query: MapPointsQuerySchema,
    openapi: {
      tag: "dead letters",
      summary: "Record positions for the map, or grid cells when many",
      description:
        "bbox is the map's view. Up to 2,000 records come as points with their id; more as grid cells (count n at the cells' mean position) sized for the zoom.",
      responses: { 200: { description: "A GeoJSON FeatureCollection", schema: MapPointsSchema } },
    },
  },
  async ({ query, principal }) => {
    const { zoom, ...filter } = query;
    return mapPoints(getDb().pool, principal!.scope, filter, zoom);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
