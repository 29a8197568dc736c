import { AppError } from "@/lib/errors/app-error";
import { defineRoute, otherMethods } from "@/lib/api/handler";
import { can } from "@/lib/auth/permissions";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { applyAction } from "@/lib/dead-letters/triage/apply-action";
import { ActionBodySchema } from "@/lib/dead-letters/contract/decision";
import { IdParamsSchema } from "@/lib/dead-letters/contract/record-id";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskDetail } from "@/lib/dead-letters/query/mask-detail";
import { answerOffThread } from "@/lib/api/off-thread-reads";
import { ConflictBodySchema } from "@/lib/dead-letters/contract/decision";
import { ServedDeadLetterDetailSchema } from "@/lib/dead-letters/contract/detail";

export const dynamic = "force-dynamic";

/**
 * POST /api/dead-letters/{id}/actions {action, version, reason?, payload?, overrideIdentity?} — approve, edit,
 * quarantine or reopen; 409 with the current record when `version` is stale or the status forbids the action.
 */
export const POST = defineRoute(
  // An edit's payload is parsed, compared with the stored one and serialized on this thread (GEOS runs on a
  // worker): each of those is linear in its size, and 1 MB (a ~75,000-vertex polygon, more than the editor
  // handles) keeps every one of them well under the 200 ms health budget; a larger record is fixed at its source.
  {
    access: { permission: "dead_letters:triage" },
    params: IdParamsSchema,
    body: ActionBodySchema,
    maxBodyBytes: 1024 * 1024,
    openapi: {
      tag: "triage",
      summary: "Approve, edit, quarantine or reopen one record",
      description:
        "Optimistic concurrency: send the version you read. Quarantine needs a reason. Poison records cannot be approved until edited into validity. " +
        "AFC identity fields (event_id, device_id, tap_timestamp, fare_amount_cents) may only change when a supervisor overrides with a reason (an edit by a supervisor with a reason is the override, unless overrideIdentity is false); the stored key never changes.",
      responses: {
        200: { description: "The record after the decision", schema: ServedDeadLetterDetailSchema },
        404: { description: "No such record" },
        409: {
          description: "The record changed under you or its status forbids this: `current` is the record now",
          schema: ConflictBodySchema,
        },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) => {
    const rules = configuredMaskRules();
    try {
      const { heavy, ...detail } = await applyAction(getDb().pool, params.id, body, {
        actor: actorOf(principal!),
        scope: principal!.scope,
        requestId,
        now,
        canOverrideIdentity: can(principal!.role, "dead_letters:override_identity"),
        // Triage sees card data masked: an edit made from that view must not write placeholders back.
        maskRules: rules,
      });
      // A heavy record's answer is built off this thread, as its GET is.
      if (heavy) return answerOffThread("detail", { id: params.id, rules });
      return maskDetail(detail, rules);
    } catch (err) {
      // a 409 carries the record as it is now: masked like every other answer
      if (err instanceof AppError && err.details?.current) err.details.current = maskDetail(err.details.current as DeadLetterDetail, rules);
      throw err;
    }
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
