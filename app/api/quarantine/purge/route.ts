import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { configuredMaskRules } from "@/lib/masking/config";
import { purgeQuarantined } from "@/lib/dead-letters/triage/release-purge";
import { QuarantineBodySchema } from "@/lib/dead-letters/record-schemas";

export const dynamic = "force-dynamic";

/** POST /api/quarantine/purge {ids | filter, reason} — supervisors: payloads removed, status purged; {purged, skipped}. */
export const POST = defineRoute(
  { access: { permission: "dead_letters:purge" }, body: QuarantineBodySchema },
  async ({ body, principal, requestId, now }) =>
    purgeQuarantined(getDb().pool, body, { actor: actorOf(principal!), requestId, now, rules: configuredMaskRules() }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
