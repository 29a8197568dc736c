import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { requestPull } from "@/lib/sources/pull-now";
import { PullBody, SourceNameParams } from "@/lib/sources/source-schemas";

export const dynamic = "force-dynamic";

/**
 * POST /api/sources/{name}/pull {max?} — pull now, run by a runtime under the source's lease: {pulled, created,
 * duplicates, unreadable}; 502 when the broker cannot be reached, 504 when no answer came within 60 s.
 */
export const POST = defineRoute(
  { access: { permission: "sources:manage" }, params: SourceNameParams, body: PullBody, bodyOptional: true },
  async ({ params, body, principal, requestId }) =>
    requestPull(getDb().pool, params.name, {
      ...(body.max !== undefined ? { max: body.max } : {}),
      actor: actorOf(principal!),
      requestId,
    }),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
