import { defineRoute } from "@/lib/api/handler";
import { can } from "@/lib/auth/permissions";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { applyAction } from "@/lib/dead-letters/actions";
import { ActionBodySchema, IdParamsSchema } from "@/lib/dead-letters/schemas";

export const dynamic = "force-dynamic";

/**
 * POST /api/dead-letters/{id}/actions {action, version, reason?, payload?, overrideIdentity?} — approve, edit,
 * quarantine or reopen; 409 with the current record when `version` is stale or the status forbids the action.
 */
export const POST = defineRoute(
  { access: { permission: "dead_letters:triage" }, params: IdParamsSchema, body: ActionBodySchema },
  async ({ params, body, principal, requestId, now }) =>
    applyAction(getDb().pool, params.id, body, {
      actor: actorOf(principal!),
      requestId,
      now,
      canOverrideIdentity: can(principal!.role, "dead_letters:override_identity"),
    }),
);
