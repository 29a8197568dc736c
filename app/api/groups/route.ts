import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { GroupListQuerySchema } from "@/lib/dead-letters/contract/groups";
import { listGroups } from "@/lib/dead-letters/groups/read-groups";

export const dynamic = "force-dynamic";

/** GET /api/groups?sort=new|size|age&status=open,acknowledged&source= — failure groups with status, owner, counts, trend. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    query: GroupListQuerySchema,
    openapi: {
      tag: "groups",
      summary: "Failure groups (source + reason group) with status, owner, counts and a 14-day trend",
      description: "sort=new (latest arrival first) | size | age (seen first, first); status filters by the groups' status.",
      responses: { 200: { description: "{ groups }" } },
    },
  },
  async ({ query, now, principal }) => ({
    groups: await listGroups(getDb().pool, principal!.scope, query, now),
  }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
