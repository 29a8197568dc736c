import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { OwnRecordParamsSchema, OwnRecordSchema } from "@/lib/dead-letters/contract/own-records";
import { readOwnRecord } from "@/lib/dead-letters/query/own-records";
import { configuredMaskRules } from "@/lib/masking/config";

export const dynamic = "force-dynamic";

/** GET /api/producer/records/{id} — one record the caller sent (404 for anyone else's), masked. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read_own" },
    params: OwnRecordParamsSchema,
    openapi: {
      tag: "producer",
      summary: "One record the caller sent",
      responses: {
        200: { description: "The record", schema: OwnRecordSchema },
        404: { description: "No such record among those the caller sent" },
      },
    },
  },
  async ({ params, principal }) => readOwnRecord(getDb().pool, principal!.userId, params.id, configuredMaskRules()),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
