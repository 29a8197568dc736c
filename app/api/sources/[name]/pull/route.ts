import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { pullNow } from "@/lib/sources/pull-now";
import { PullBody, SourceNameParams } from "@/lib/sources/source-schemas";

export const dynamic = "force-dynamic";

/** POST /api/sources/{name}/pull {max?} — pull now: {pulled, created, duplicates, unreadable}; 502 when the broker cannot be reached. */
export const POST = defineRoute(
  { access: { permission: "sources:manage" }, params: SourceNameParams, body: PullBody, bodyOptional: true },
  async ({ params, body, principal, requestId }) =>
    pullNow(getDb().pool, params.name, {
      ...(body.max !== undefined ? { max: body.max } : {}),
      actor: actorOf(principal!),
      requestId,
      clock: () => new Date(),
    }),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
