import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { mentionsOf } from "@/lib/dead-letters/notes/notes";

export const dynamic = "force-dynamic";

/** GET /api/notes/mentions — notes that mention the caller: how many, and the newest 20. */
export const GET = defineRoute({ access: { permission: "dead_letters:read" } }, async ({ principal }) =>
  mentionsOf(getDb().pool, principal!.userId),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
