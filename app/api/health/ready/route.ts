import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { databaseHealth, readiness } from "@/lib/db/health";
import { isDraining } from "@/lib/startup/lifecycle";

export const dynamic = "force-dynamic";

/**
 * GET /api/health/ready — whether to send this server requests: the database answers, every migration this code
 * expects is applied (a database ahead of it is fine), and the server is not stopping. 503 otherwise.
 */
export const GET = defineRoute(
  {
    access: { public: true },
    openapi: {
      tag: "meta",
      summary: "Readiness: database reachable, this code's migrations applied, not stopping",
      responses: { 200: { description: "ready" }, 503: { description: "Not ready, with the reasons" } },
    },
  },
  async () => {
    const ready = readiness(await databaseHealth(getDb().pool), isDraining());
    return answer(ready, { status: ready.ready ? 200 : 503 });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
