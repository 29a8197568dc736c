import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { groupMentionsOf } from "@/lib/dead-letters/groups/read-groups";
import { mergeMentions } from "@/lib/dead-letters/notes/mentions";
import { mentionsOf } from "@/lib/dead-letters/notes/notes";
import { MentionListSchema } from "@/lib/dead-letters/contract/notes";

export const dynamic = "force-dynamic";

const NEWEST = 20;

/** GET /api/notes/mentions — notes on records and on failure groups that mention the caller: how many, the newest 20. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    openapi: {
      tag: "notes",
      summary: "Notes that mention you: how many, and the newest 20",
      responses: { 200: { description: "Mentions", schema: MentionListSchema } },
    },
  },
  async ({ principal }) => {
    const pool = getDb().pool;
    const [records, groups] = await Promise.all([
      mentionsOf(pool, principal!.scope, principal!.userId, NEWEST),
      groupMentionsOf(pool, principal!.scope, principal!.userId, NEWEST),
    ]);
    return mergeMentions(records, groups, NEWEST);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
