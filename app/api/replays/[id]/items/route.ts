import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { BatchIdParams, ItemsQuery } from "@/lib/replay/batch/batch-schemas";
import { listItems } from "@/lib/replay/batch/read-batches";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskEntityKey } from "@/lib/masking/identifiers";
import { maskOptionalReason } from "@/lib/dead-letters/query/mask-list";
import { ErrorBodySchema } from "@/lib/api/openapi";

export const dynamic = "force-dynamic";

/** GET /api/replays/{id}/items?status=&cursor=&limit= — the batch's items in replay order, with outcomes and errors. */
export const GET = defineRoute(
  {
    access: { permission: "replays:read" },
    params: BatchIdParams,
    query: ItemsQuery,
    openapi: {
      tag: "replays",
      summary: "A batch's items in replay order",
      responses: { 200: { description: "A page of items" }, 404: { description: "No such batch", schema: ErrorBodySchema } },
    },
  },
  async ({ params, query, principal }) => {
    // A sink's error may echo the payload it refused (card data included): masked like every other reason.
    const page = await listItems(getDb().pool, principal!.scope, params.id, query);
    const rules = configuredMaskRules();
    // A tap's entity key is its device_id: masked when the key globs name it (lib/masking/identifiers.ts).
    return {
      ...page,
      items: page.items.map((i) => ({
        ...i,
        entityKey: maskEntityKey(i.entityKey, i.kind, rules),
        lastError: maskOptionalReason(i.lastError, rules),
      })),
    };
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
