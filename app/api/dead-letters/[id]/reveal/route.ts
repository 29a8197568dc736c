import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { answerOffThread } from "@/lib/api/off-thread-reads";
import { IdParamsSchema } from "@/lib/dead-letters/contract/record-id";
import { configuredMaskRules } from "@/lib/masking/config";
import { RevealBodySchema } from "@/lib/forensics/forensics-schemas";

export const dynamic = "force-dynamic";

/**
 * POST /api/dead-letters/{id}/reveal {path} — one masked field in clear, audited as dead_letter.field_revealed. The
 * payload or envelope is read and parsed off this thread (lib/api/off-thread-reads.ts).
 */
export const POST = defineRoute(
  {
    access: { permission: "dead_letters:unmask" },
    params: IdParamsSchema,
    body: RevealBodySchema,
    clearAnswer: true,
    openapi: {
      tag: "forensics",
      summary: "One masked field in clear (audited)",
      responses: { 200: { description: "The field's value" }, 404: { description: "No such record" } },
    },
  },
  async ({ params, body, principal, requestId, now }) =>
    answerOffThread("reveal", {
      id: params.id,
      path: body.path,
      scope: principal!.scope,
      actor: actorOf(principal!),
      requestId,
      now,
      rules: configuredMaskRules(),
    }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
