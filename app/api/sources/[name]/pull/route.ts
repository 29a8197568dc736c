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
  {
    access: { permission: "sources:manage" },
    params: SourceNameParams,
    body: PullBody,
    bodyOptional: true,
    openapi: {
      tag: "sources",
      summary: "Pull now: store what waits (up to max) and acknowledge it after the commit",
      responses: {
        200: {
          description:
            "{pulled, created, duplicates, unreadable, failedAgain?}: failedAgain, when any, counts replayed records back in triage",
        },
        409: { description: "A worker is pulling the source now" },
        502: { description: "The broker could not be reached or refused (recorded on the source)" },
      },
    },
  },
  async ({ params, body, principal, requestId }) =>
    requestPull(getDb().pool, params.name, {
      ...(body.max !== undefined ? { max: body.max } : {}),
      actor: actorOf(principal!),
      requestId,
    }),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
