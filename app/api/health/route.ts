import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { databaseHealth } from "@/lib/db/health";

export const dynamic = "force-dynamic";

/** GET /api/health — database reachability and migration state; 503 when not ok. */
export const GET = defineRoute(
  {
    access: { public: true },
    openapi: {
      tag: "meta",
      summary: "Database reachability and migration state",
      responses: { 200: { description: "ok" }, 503: { description: "Not ok" } },
    },
  },
  async () => {
    const health = await databaseHealth(getDb().pool);
    return answer(health, { status: health.status === "ok" ? 200 : 503 });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
