import { defineRoute, noRouteError } from "@/lib/api/handler";

export const dynamic = "force-dynamic";

// Every /api path that no route claims: a JSON 404 naming the path, like the rest of the API, instead of the
// HTML not-found page (the more specific routes win over this catch-all).
const notFound = defineRoute(
  { access: { public: true }, openapi: { undocumented: "answers every path no route has: 404" } },
  async ({ req }) => {
    throw noRouteError(req);
  },
);

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
