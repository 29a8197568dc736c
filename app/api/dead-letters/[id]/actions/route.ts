import { AppError } from "@/lib/api/errors";
import { defineRoute } from "@/lib/api/handler";
import { can } from "@/lib/auth/permissions";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { applyAction } from "@/lib/dead-letters/actions";
import { ActionBodySchema, IdParamsSchema, type DeadLetterDetail } from "@/lib/dead-letters/schemas";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskDetail } from "@/lib/masking/detail";
import { containsMaskPlaceholder } from "@/lib/masking/mask";
import { restoreMasked } from "@/lib/masking/restore";
import type { JsonValue } from "@/lib/dead-letters/types";

export const dynamic = "force-dynamic";

/**
 * POST /api/dead-letters/{id}/actions {action, version, reason?, payload?, overrideIdentity?} — approve, edit,
 * quarantine or reopen; 409 with the current record when `version` is stale or the status forbids the action.
 */
export const POST = defineRoute(
  { access: { permission: "dead_letters:triage" }, params: IdParamsSchema, body: ActionBodySchema },
  async ({ params, body: input, principal, requestId, now }) => {
    const rules = configuredMaskRules();
    let body = input;
    // Triage sees card data masked (lib/masking): an edit built from that view gets the values it left as shown
    // back from the record, and is refused where a placeholder was changed. A stale read here is harmless: the
    // edit carries the version it was made on, and applyAction answers 409 if the record changed since.
    if (body.action === "edit" && containsMaskPlaceholder(body.payload)) {
      const { rows } = await getDb().pool.query<{ payload: JsonValue | null }>("SELECT payload FROM dead_letter WHERE id = $1", [params.id]);
      const row = rows[0];
      // No such record: applyAction answers 404 below.
      if (row) {
        const { payload, changed } = restoreMasked(body.payload, row.payload, rules);
        if (changed.length > 0) {
          const message = "holds a masked value (•••) that is not the one shown: type the full value, leave it as shown, or remove the field";
          const issues = changed.map((path) => ({ path: ["payload", ...path].join("."), message }));
          throw new AppError("validation_failed", `${issues[0]!.path}: ${message}`, { issues });
        }
        body = { ...body, payload };
      }
    }
    try {
      return maskDetail(await applyAction(getDb().pool, params.id, body, {
        actor: actorOf(principal!),
        requestId,
        now,
        canOverrideIdentity: can(principal!.role, "dead_letters:override_identity"),
      }), rules);
    } catch (err) {
      // a 409 carries the record as it is now: masked like every other answer
      if (err instanceof AppError && err.details?.current) err.details.current = maskDetail(err.details.current as DeadLetterDetail, rules);
      throw err;
    }
  },
);
