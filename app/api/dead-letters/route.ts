import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { ListQuerySchema } from "@/lib/dead-letters/filters";
import { ingestResponse } from "@/lib/api/ingest-response";
import { listDeadLetters } from "@/lib/dead-letters/query/list";
import { configuredMaskRules } from "@/lib/masking/config";
import { maskListPage } from "@/lib/dead-letters/query/mask-list";
import { ListPageSchema } from "@/lib/dead-letters/contract/list";
import { ErrorBodySchema } from "@/lib/api/openapi";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters — one keyset page of the list, filtered; reasons masked (card data in clear is per record). */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    query: ListQuerySchema,
    openapi: {
      tag: "dead letters",
      summary: "One keyset page of the list, filtered",
      description:
        "Newest observation first (order=asc for oldest). Pass nextCursor back as cursor for the next page. " +
        "Card numbers in reasons are masked for every reader (read one record with unmask=1 for clear text).",
      responses: { 200: { description: "A page", schema: ListPageSchema } },
    },
  },
  async ({ query, principal }) => maskListPage(await listDeadLetters(getDb().pool, principal!.scope, query), configuredMaskRules()),
);

/** POST /api/dead-letters — ingest one envelope, a JSON array or NDJSON; results in input order. */
export const POST = defineRoute(
  {
    access: { permission: "dead_letters:ingest" },
    openapi: {
      tag: "ingest",
      summary: "Ingest dead letters (one envelope, a JSON array or NDJSON)",
      responses: {
        200: {
          description:
            "Per-record results: created, duplicate (without the id when another sender stored the record) or rejected with field errors",
        },
        415: { description: "Neither JSON nor NDJSON", schema: ErrorBodySchema },
      },
      rawBody: {
        contentTypes: ["application/json", "application/x-ndjson"],
        description: "Spatial or AFC envelopes; streamed, results in input order",
      },
    },
  },
  async ({ req, principal, requestId }) => ingestResponse(req, getDb().pool, principal!, requestId),
);

/** Other methods: 405 with Allow, in JSON. */
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
