import { defineRoute } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { healthOverview } from "@/lib/forensics/overview";

export const dynamic = "force-dynamic";

/** GET /api/overview — DLQ health: counts, arrival and poison series, oldest record, replays, alerts. */
export const GET = defineRoute({ access: { permission: "dead_letters:read" } }, async ({ now }) => healthOverview(getDb().pool, now));
