import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { BatchIdParams } from "@/lib/replay/batch/batch-schemas";
import { getBatch } from "@/lib/replay/batch/read-batches";
import { ErrorBodySchema } from "@/lib/api/openapi";

export const dynamic = "force-dynamic";

/** GET /api/replays/{id} — status, counts per outcome, configured and achieved rate, ETA. */
export const GET = defineRoute(
  {
    access: { permission: "replays:read" },
    params: BatchIdParams,
    openapi: {
      tag: "replays",
      summary: "A batch: status, outcome counts, rates, ETA",
      responses: {
        200: {
          description:
            "The batch: `status`, `counts` {applied, deduped, dropped, poison, failed, cancelled, pending}, `total`, `achievedRate` (last 10 s), `averageRate` (whole run: submissions per second from the first to the last, once ended), `eta`, `destinations` (back to origin: every distinct destination with counts), …",
        },
        404: { description: "No such batch", schema: ErrorBodySchema },
      },
    },
  },
  async ({ params, now, principal }) => getBatch(getDb().pool, principal!.scope, params.id, now),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
