import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { releaseQuarantined } from "@/lib/dead-letters/triage/release-purge";
import { QuarantineBodySchema } from "@/lib/dead-letters/contract/quarantine";

export const dynamic = "force-dynamic";

/** POST /api/quarantine/release {ids | filter, reason} — quarantined → pending; answers {released, skipped}. */
export const POST = defineRoute(
  { access: { permission: "dead_letters:triage" }, body: QuarantineBodySchema },
  async ({ body, principal, requestId, now }) => releaseQuarantined(getDb().pool, body, { actor: actorOf(principal!), requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
