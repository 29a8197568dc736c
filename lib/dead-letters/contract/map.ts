import { z } from "zod";
import { queryNumber } from "../../vocabulary/query-number";
import { ListFilterSchema } from "../filters";
import { IdSchema } from "./record-id";

// GET /api/dead-letters/map-points and /extent: the matching records on the map, as points or grid cells, and
// the box that holds them.

export const MapPointsQuerySchema = ListFilterSchema.extend({
  zoom: queryNumber(z.number().min(0).max(24).default(2).describe("the map's zoom: decides the aggregation grid")),
});

export const ExtentSchema = z
  .object({
    bbox: z
      .tuple([z.number(), z.number(), z.number(), z.number()])
      .nullable()
      .describe(
        "[west, south, east, north] of the matching spatial records (east may exceed 180 across the antimeridian); null when none has a geometry",
      ),
    count: z.number().int().describe("matching spatial records with a geometry"),
  })
  .meta({ id: "Extent" });

export const MapPointsSchema = z
  .object({
    type: z.literal("FeatureCollection"),
    /** points: one feature per record (id set); grid: one per occupied cell, `n` records, at their mean position */
    mode: z.enum(["points", "grid"]),
    total: z.number().int(),
    /** false when counted from a sample (a crowded view); counts are then estimates */
    exact: z.boolean(),
    features: z.array(
      z.object({
        type: z.literal("Feature"),
        geometry: z.object({ type: z.literal("Point"), coordinates: z.tuple([z.number(), z.number()]) }),
        properties: z.object({ n: z.number().int(), id: IdSchema.optional() }),
      }),
    ),
  })
  .meta({ id: "MapPoints" });
export type MapPoints = z.infer<typeof MapPointsSchema>;
export type Extent = z.infer<typeof ExtentSchema>;
