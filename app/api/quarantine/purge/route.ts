import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { answerOffThread } from "@/lib/api/off-thread-reads";
import { configuredMaskRules } from "@/lib/masking/config";
import { QuarantineBodySchema } from "@/lib/dead-letters/contract/quarantine";

export const dynamic = "force-dynamic";

/**
 * POST /api/quarantine/purge {ids | filter, reason} — supervisors: payloads removed, status purged; {purged, skipped}.
 * The bodies go into the audit trail (masked): read and written off this thread (lib/api/off-thread-reads.ts).
 */
export const POST = defineRoute(
  {
    access: { permission: "dead_letters:purge" },
    body: QuarantineBodySchema,
    openapi: {
      tag: "forensics",
      summary: "Remove quarantined payloads (status purged), by ids or filter",
      responses: {
        200: { description: "{ purged, skipped }" },
        409: { description: "With a filter: the group's count is no longer the confirmed expectedCount" },
      },
    },
  },
  async ({ body, principal, requestId, now }) =>
    answerOffThread("purge", { body, scope: principal!.scope, actor: actorOf(principal!), requestId, now, rules: configuredMaskRules() }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
