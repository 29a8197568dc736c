import { AppError } from "@/lib/api/errors";
import { defineRoute } from "@/lib/api/handler";

export const dynamic = "force-dynamic";

// Every /api path that no route claims: a JSON 404 naming the path, like the rest of the API, instead of the
// HTML not-found page (the more specific routes win over this catch-all).
const notFound = defineRoute({ access: { public: true } }, async ({ req }) => {
  throw new AppError("not_found", `no API route ${req.method} ${new URL(req.url).pathname} (see /api/openapi.json)`);
});

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
