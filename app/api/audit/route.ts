import { defineRoute, otherMethods } from "@/lib/api/handler";
import { auditLog } from "@/lib/audit/log";
import { AuditQuerySchema } from "@/lib/audit/log-schema";
import { getDb } from "@/lib/db/client";
import { configuredMaskRules } from "@/lib/masking/config";

export const dynamic = "force-dynamic";

/** GET /api/audit — the audit trail, newest first, filtered by action, actor, target and time; card data masked. */
export const GET = defineRoute(
  {
    access: { permission: "audit:read" },
    query: AuditQuerySchema,
    openapi: {
      tag: "forensics",
      summary: "The audit trail, newest first (auditors, admins)",
      description:
        "Filter by action (exact, or a prefix ending with '.'), actor e-mail, target type and id, time; page with cursor = nextCursor. Card data masked.",
      responses: { 200: { description: "{ events, nextCursor, masked }" } },
    },
  },
  async ({ query, principal }) => auditLog(getDb().pool, principal!.scope, query, configuredMaskRules()),
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
