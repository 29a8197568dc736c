import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { IdParamsSchema } from "@/lib/dead-letters/record-schemas";
import { revealField } from "@/lib/forensics/reveal";
import { configuredMaskRules } from "@/lib/masking/config";
import { RevealBodySchema } from "@/lib/forensics/forensics-schemas";

export const dynamic = "force-dynamic";

/** POST /api/dead-letters/{id}/reveal {path} — one masked field in clear, audited as dead_letter.field_revealed. */
export const POST = defineRoute(
  { access: { permission: "dead_letters:unmask" }, params: IdParamsSchema, body: RevealBodySchema, clearAnswer: true },
  async ({ params, body, principal, requestId, now }) =>
    revealField(getDb().pool, params.id, body.path, { actor: actorOf(principal!), requestId, now, rules: configuredMaskRules() }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
