import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { GroupIdParamsSchema, GroupPatchSchema } from "@/lib/dead-letters/contract/groups";
import { getGroup } from "@/lib/dead-letters/groups/read-groups";
import { updateGroup } from "@/lib/dead-letters/groups/update-group";

export const dynamic = "force-dynamic";

/** GET /api/groups/{id} — one failure group with its notes. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: GroupIdParamsSchema,
    openapi: {
      tag: "groups",
      summary: "One failure group with its notes",
      responses: { 200: { description: "The group" }, 404: { description: "No such group" } },
    },
  },
  async ({ params, now, principal }) => getGroup(getDb().pool, principal!.scope, params.id, now),
);

/** PATCH /api/groups/{id} {status?, owner?, resolution?, note?, version?} — analysts and supervisors work on a group (audited). */
export const PATCH = defineRoute(
  {
    access: { permission: "dead_letters:triage" },
    params: GroupIdParamsSchema,
    body: GroupPatchSchema,
    openapi: {
      tag: "groups",
      summary: "Acknowledge, resolve (with a reason), ignore or reopen a group, assign its owner, add a note (audited)",
      responses: {
        200: { description: "The group" },
        404: { description: "No such group" },
        409: { description: "version given and the group changed since" },
      },
    },
  },
  async ({ params, body, principal, requestId, now }) =>
    updateGroup(getDb().pool, params.id, body, { actor: actorOf(principal!), scope: principal!.scope, requestId, now }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, DELETE } = otherMethods("GET", "PATCH");
