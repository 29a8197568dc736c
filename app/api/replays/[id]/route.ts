import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { BatchIdParams } from "@/lib/replay/batch/batch-schemas";
import { getBatch } from "@/lib/replay/batch/read-batches";

export const dynamic = "force-dynamic";

/** GET /api/replays/{id} — status, counts per outcome, configured and achieved rate, ETA. */
export const GET = defineRoute({ access: { permission: "replays:read" }, params: BatchIdParams }, async ({ params, now }) =>
  getBatch(getDb().pool, params.id, now),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
