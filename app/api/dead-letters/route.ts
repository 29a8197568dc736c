import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { ListQuerySchema } from "@/lib/dead-letters/filters";
import { ingestResponse } from "@/lib/api/ingest-response";
import { listDeadLetters } from "@/lib/dead-letters/query/list";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskListPage } from "@/lib/dead-letters/query/mask-list";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters — one keyset page of the list, filtered; reasons masked (card data in clear is per record). */
export const GET = defineRoute({ access: { permission: "dead_letters:read" }, query: ListQuerySchema }, async ({ query }) =>
  maskListPage(await listDeadLetters(getDb().pool, query), configuredMaskRules()),
);

/** POST /api/dead-letters — ingest one envelope, a JSON array or NDJSON; results in input order. */
export const POST = defineRoute({ access: { permission: "dead_letters:ingest" } }, async ({ req, principal, requestId }) =>
  ingestResponse(req, getDb().pool, principal!, requestId),
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
