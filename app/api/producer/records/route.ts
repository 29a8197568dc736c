import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { OwnRecordsQuerySchema } from "@/lib/dead-letters/contract/own-records";
import { listOwnRecords } from "@/lib/dead-letters/query/own-records";
import { configuredMaskRules } from "@/lib/masking/config";

export const dynamic = "force-dynamic";

/** GET /api/producer/records — the records the caller's tokens and sessions sent, masked, with counts. */
export const GET = defineRoute(
  { access: { permission: "dead_letters:read_own" }, query: OwnRecordsQuerySchema },
  async ({ query, principal }) => listOwnRecords(getDb().pool, principal!.userId, query, configuredMaskRules()),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
