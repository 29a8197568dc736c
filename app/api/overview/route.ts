import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { healthOverview, maskOverview } from "@/lib/ops/overview";
import { configuredMaskRules } from "@/lib/masking/config";

export const dynamic = "force-dynamic";

/** GET /api/overview — DLQ health: counts, arrival and poison series, oldest record, replays, alerts. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    openapi: {
      tag: "forensics",
      summary: "DLQ health: counts, series, oldest record, replays, alerts",
      responses: { 200: { description: "The overview" } },
    },
  },
  async ({ now, principal }) => maskOverview(await healthOverview(getDb().pool, principal!.scope, now), configuredMaskRules()),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
