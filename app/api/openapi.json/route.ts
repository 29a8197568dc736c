import { defineRoute, json, otherMethods } from "@/lib/api/handler";
import { openApiDocument } from "@/lib/api/openapi-routes";

export const dynamic = "force-dynamic";

/** GET /api/openapi.json — the OpenAPI 3.1 description of every route, generated from the handlers' zod schemas. */
export const GET = defineRoute({ access: { public: true } }, async () =>
  json(openApiDocument(), { headers: { "cache-control": "public, max-age=300" } }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
