import { defineRoute } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { BatchIdParams, ItemsQuery } from "@/lib/replay/schemas";
import { listItems } from "@/lib/replay/views";

export const dynamic = "force-dynamic";

/** GET /api/replays/{id}/items?status=&cursor=&limit= — the batch's items in replay order, with outcomes and errors. */
export const GET = defineRoute({ access: { permission: "replays:read" }, params: BatchIdParams, query: ItemsQuery }, async ({ params, query }) =>
  listItems(getDb().pool, params.id, query),
);
