import { defineRoute } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { bulkAction } from "@/lib/dead-letters/bulk";
import { BulkBodySchema } from "@/lib/dead-letters/schemas";

export const dynamic = "force-dynamic";

/**
 * POST /api/dead-letters/bulk {action, reason?, ids | filter, expectedCount?, dryRun?} — one decision on many
 * records, in pages of 500 on the server; answers {matched, updated, skipped, skippedReasons}.
 */
export const POST = defineRoute(
  { access: { permission: "dead_letters:triage" }, body: BulkBodySchema },
  async ({ body, principal, requestId, now }) => bulkAction(getDb().pool, body, { actor: actorOf(principal!), requestId, now }),
);
