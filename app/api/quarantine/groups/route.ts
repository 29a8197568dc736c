import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { quarantineGroups } from "@/lib/dead-letters/query/quarantine-groups";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskReasonGroups } from "@/lib/dead-letters/query/mask-list";

export const dynamic = "force-dynamic";

/** GET /api/quarantine/groups — quarantined records by reason pattern, with counts and a 14-day trend. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    openapi: {
      tag: "forensics",
      summary: "Quarantined records by reason pattern, with a 14-day trend",
      responses: { 200: { description: "The groups" } },
    },
  },
  async ({ now, principal }) => ({
    groups: maskReasonGroups(await quarantineGroups(getDb().pool, principal!.scope, now), configuredMaskRules()),
  }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
