import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { releaseQuarantined } from "@/lib/dead-letters/triage/release-purge";
import { QuarantineBodySchema } from "@/lib/dead-letters/contract/quarantine";

export const dynamic = "force-dynamic";

/** POST /api/quarantine/release {ids | filter, reason} — quarantined → pending; answers {released, skipped}. */
export const POST = defineRoute(
  {
    access: { permission: "dead_letters:triage" },
    body: QuarantineBodySchema,
    openapi: {
      tag: "forensics",
      summary: "Quarantined → pending, by ids or filter",
      responses: {
        200: { description: "{ released, skipped }" },
        409: { description: "With a filter: the group's count is no longer the confirmed expectedCount" },
      },
    },
  },
  async ({ body, principal, requestId, now }) =>
    releaseQuarantined(getDb().pool, body, { actor: actorOf(principal!), scope: principal!.scope, requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
