import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { bulkAction } from "@/lib/dead-letters/triage/bulk-action";
import { createBulkJob } from "@/lib/dead-letters/triage/bulk-jobs";
import { runInBackground } from "@/lib/api/run-in-background";
import { BulkBodySchema } from "@/lib/dead-letters/contract/bulk";

export const dynamic = "force-dynamic";

/**
 * POST /api/dead-letters/bulk {action, reason?, ids | filter, expectedCount?, dryRun?} — one decision on many
 * records. Ids (≤ 10,000) and dry runs answer 200 {matched, updated, skipped, skippedReasons} in the request; a
 * filter answers 202 {job} at once and the server applies it in pages (GET /api/dead-letters/bulk/{jobId}).
 */
export const POST = defineRoute(
  { access: { permission: "dead_letters:triage" }, body: BulkBodySchema },
  async ({ body, principal, requestId, now }) => {
    const ctx = { actor: actorOf(principal!), requestId, now };
    const pool = getDb().pool;
    if (!body.filter || body.dryRun) return bulkAction(pool, body, ctx);
    const job = await createBulkJob(pool, { ...body, filter: body.filter }, ctx);
    if (job.status === "running") runInBackground(pool, job.id);
    return answer({ job }, { status: 202, headers: { location: `/api/dead-letters/bulk/${job.id}` } });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
