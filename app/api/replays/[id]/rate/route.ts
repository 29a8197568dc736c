import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { BatchIdParams, RateQuery } from "@/lib/replay/batch/batch-schemas";
import { rateSeries } from "@/lib/replay/batch/read-batches";

export const dynamic = "force-dynamic";

/** GET /api/replays/{id}/rate?window=300 — submissions per second, for the achieved-vs-configured chart. */
export const GET = defineRoute(
  { access: { permission: "replays:read" }, params: BatchIdParams, query: RateQuery },
  async ({ params, query, now }) => rateSeries(getDb().pool, params.id, query.window, now),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
