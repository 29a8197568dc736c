import { defineRoute, otherMethods } from "@/lib/api/handler";

export const dynamic = "force-dynamic";

/** GET /api/health/live — the process answers (liveness); asks nothing of the database. */
export const GET = defineRoute(
  {
    access: { public: true },
    openapi: { tag: "meta", summary: "Liveness: the process answers (no database check)", responses: { 200: { description: "live" } } },
  },
  async () => ({ status: "live" }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
