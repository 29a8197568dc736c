import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { openApiDocument } from "@/lib/api/route-operations";
import { ROUTE_MODULES } from "@/app/api/route-modules.generated";

export const dynamic = "force-dynamic";

/** GET /api/openapi.json — the OpenAPI 3.1 description of every route, from each route's own description and zod schemas. */
export const GET = defineRoute(
  {
    access: { public: true },
    // The routes' own descriptions and schemas, no record data: its examples stay as written.
    clearAnswer: true,
    openapi: { tag: "meta", summary: "This document", responses: { 200: { description: "OpenAPI 3.1" } } },
  },
  async () => answer(openApiDocument(ROUTE_MODULES), { headers: { "cache-control": "public, max-age=300" } }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
