import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { prometheusMetrics } from "@/lib/ops/metrics";

export const dynamic = "force-dynamic";

/**
 * GET /api/metrics — Prometheus text format. Token-protected, not public: queue sizes and reason patterns say
 * a lot about the fare system. Scrape with an API token of any role that reads dead letters
 * (`authorization: { credentials: rdv_… }` in the scrape config); a browser session is refused.
 */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read", tokenOnly: true },
    openapi: {
      tag: "forensics",
      summary: "Prometheus metrics (text format; scrape with an API token)",
      responses: { 200: { description: "text/plain; version=0.0.4" } },
    },
  },
  async ({ now, principal }) =>
    new Response(await prometheusMetrics(getDb().pool, principal!.scope, now), {
      headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
    }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
