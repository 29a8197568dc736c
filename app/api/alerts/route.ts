import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { listAlertRules, recentAlertEvents } from "@/lib/forensics/alerts/rules";

export const dynamic = "force-dynamic";

/** GET /api/alerts — the rules (with the open event of a firing one) and the latest alert events. */
export const GET = defineRoute({ access: { permission: "dead_letters:read" } }, async () => {
  const pool = getDb().pool;
  const [rules, events] = await Promise.all([listAlertRules(pool), recentAlertEvents(pool)]);
  return { rules, events };
});

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
