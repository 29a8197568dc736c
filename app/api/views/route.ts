import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { createView, listViews, withCounts } from "@/lib/dead-letters/views/saved-views";
import { CreateViewBodySchema, ListViewsQuerySchema, SavedViewListSchema, SavedViewSchema } from "@/lib/dead-letters/contract/views";

export const dynamic = "force-dynamic";

/** GET /api/views[?counts=1] — the caller's saved views and the shared ones, with live counts on request. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    query: ListViewsQuerySchema,
    openapi: {
      tag: "saved views",
      summary: "Your saved views and the shared ones (counts=1: each with its live count)",
      responses: { 200: { description: "The views", schema: SavedViewListSchema } },
    },
  },
  async ({ query, principal, now }) => {
    const pool = getDb().pool;
    const views = await listViews(pool, principal!);
    return { items: query.counts ? await withCounts(pool, principal!.scope, views, now) : views };
  },
);

/** POST /api/views {name, shared?, filter, sort?, columns?} — saves a view (audited as saved_view.created). */
export const POST = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    body: CreateViewBodySchema,
    openapi: {
      tag: "saved views",
      summary: "Save the list's filter as a named view, personal or shared (audited)",
      responses: {
        201: { description: "The view", schema: SavedViewSchema },
        409: { description: "You already have a view of that name" },
      },
    },
  },
  async ({ body, principal, requestId, now }) =>
    answer(await createView(getDb().pool, body, principal!, { actor: actorOf(principal!), requestId, now }), { status: 201 }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
