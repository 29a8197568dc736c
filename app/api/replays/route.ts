import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { actingUser } from "@/lib/api/batch-action-route";
import { createBatch } from "@/lib/replay/batch/create-batch";
import { CreateBatchBody, ListBatchesQuery } from "@/lib/replay/batch/batch-schemas";
import { getBatch, listBatches } from "@/lib/replay/batch/read-batches";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/replays — replay batches, newest first. */
export const GET = defineRoute(
  {
    access: { permission: "replays:read" },
    query: ListBatchesQuery,
    openapi: {
      tag: "replays",
      summary: "Replay batches, newest first",
      responses: { 200: { description: "{ batches }", schema: z.looseObject({}).describe("batches") } },
    },
  },
  async ({ query, now, principal }) => ({
    batches: await listBatches(getDb().pool, principal!.scope, query, now),
  }),
);

/** POST /api/replays — a draft batch from approved records (ids or a list filter); 201 with the batch. */
export const POST = defineRoute(
  {
    access: { permission: "replays:manage" },
    body: CreateBatchBody,
    openapi: {
      tag: "replays",
      summary: "A draft batch from approved records (ids or a list filter)",
      responses: {
        201: { description: "The batch" },
        409: { description: "expectedCount given and the selection now matches another number of records (`matched`)" },
      },
    },
  },
  async ({ body, principal, now, requestId }) => {
    const pool = getDb().pool;
    const created = await createBatch(pool, body, actingUser(principal), { now, requestId });
    return answer({ ...(await getBatch(pool, principal!.scope, created.id, now)), skipped: created.skipped }, { status: 201 });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
