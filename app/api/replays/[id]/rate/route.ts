import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { BatchIdParams, RateQuery } from "@/lib/replay/batch/batch-schemas";
import { rateSeries } from "@/lib/replay/batch/read-batches";
import { ErrorBodySchema } from "@/lib/api/openapi";

export const dynamic = "force-dynamic";

/** GET /api/replays/{id}/rate?window=300 — submissions per second, for the achieved-vs-configured chart. */
export const GET = defineRoute(
  {
    access: { permission: "replays:read" },
    params: BatchIdParams,
    query: RateQuery,
    openapi: {
      tag: "replays",
      summary: "Submissions per second over a window",
      responses: { 200: { description: "The series" }, 404: { description: "No such batch", schema: ErrorBodySchema } },
    },
  },
  async ({ params, query, now, principal }) => rateSeries(getDb().pool, principal!.scope, params.id, query.window, now),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
