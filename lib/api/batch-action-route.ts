import "server-only";
import { AppError } from "../errors/app-error";
import { defineRoute, type RouteHandler } from "./handler";
import type { Principal } from "../auth/principal";
import { getDb } from "../db/client";
import { applyBatchAction, type ActingUser } from "../replay/batch/apply-batch-action";
import { BatchIdParams } from "../replay/batch/batch-schemas";
import { ACTION_PERMISSION, type BatchAction } from "../replay/batch/batch-states";
import { getBatch } from "../replay/batch/read-batches";
import { ErrorBodySchema } from "./openapi";

// Glue between app/api/replays/** and the engine, so each route file stays one line of wiring.

export function actingUser(principal: Principal | null): ActingUser {
  if (!principal) throw new AppError("unauthenticated", "sign in or send Authorization: Bearer <token>");
  return { userId: principal.userId, email: principal.email, role: principal.role, scope: principal.scope };
}

/** POST /api/replays/{id}/{action}: the transition, under the action's permission (approve: four-eyes too). */
export function batchActionRoute(action: BatchAction): RouteHandler {
  return defineRoute(
    {
      access: { permission: ACTION_PERMISSION[action] },
      params: BatchIdParams,
      openapi: {
        tag: "replays",
        summary: `${action[0]!.toUpperCase()}${action.slice(1)} a batch`,
        responses: {
          200: { description: "The batch after the transition" },
          404: { description: "No such batch", schema: ErrorBodySchema },
          409: { description: "The batch's status forbids it" },
        },
      },
    },
    async ({ params, principal, now, requestId }) => {
      const pool = getDb().pool;
      // A cancel's waiting items are marked after this answer (apply-batch-action.ts); the view counts them cancelled already.
      await applyBatchAction(pool, params.id, action, actingUser(principal), { now, requestId });
      return getBatch(pool, principal!.scope, params.id, now);
    },
  );
}
