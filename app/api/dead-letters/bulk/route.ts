import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { bulkAction } from "@/lib/dead-letters/triage/bulk-action";
import { createBulkJob } from "@/lib/dead-letters/triage/bulk-jobs";
import { runInBackground } from "@/lib/api/run-in-background";
import { BulkBodySchema, BulkJobAcceptedSchema, BulkResultSchema } from "@/lib/dead-letters/contract/bulk";
import { ConflictBodySchema } from "@/lib/dead-letters/contract/decision";

export const dynamic = "force-dynamic";

/**
 * POST /api/dead-letters/bulk {action, reason?, ids | filter, expectedCount?, dryRun?} — one decision on many
 * records. Ids (≤ 10,000) and dry runs answer 200 {matched, updated, skipped, skippedReasons} in the request; a
 * filter answers 202 {job} at once and the server applies it in pages (GET /api/dead-letters/bulk/{jobId}).
 */
export const POST = defineRoute(
  {
    access: { permission: "dead_letters:triage" },
    body: BulkBodySchema,
    openapi: {
      tag: "triage",
      summary: "One decision on many records (ids, or everything matching a filter)",
      description:
        "Applied on the server in pages of 500 rows locked in id order; records the state machine refuses are skipped and counted by reason. expectedCount guards against the selection having changed since it was confirmed (409 with `matched`). " +
        "Ids (at most 10,000) and dry runs are answered 200 with the result. A filter, which may match any number of records, is answered 202 with a job at once (Location: its progress URL); the server applies it page by page after the response — poll GET /api/dead-letters/bulk/{jobId}.",
      responses: {
        200: { description: "Ids or a dry run: what was done (or would match)", schema: BulkResultSchema },
        202: { description: "A filter: the job, accepted and running", schema: BulkJobAcceptedSchema },
        409: { description: "The number of matching records changed: confirm again", schema: ConflictBodySchema },
      },
    },
  },
  async ({ body, principal, requestId, now }) => {
    const ctx = { actor: actorOf(principal!), scope: principal!.scope, requestId, now };
    const pool = getDb().pool;
    if (!body.filter || body.dryRun) return bulkAction(pool, body, ctx);
    const job = await createBulkJob(pool, { ...body, filter: body.filter }, ctx);
    if (job.status === "running") runInBackground(pool, job.id);
    return answer({ job }, { status: 202, headers: { location: `/api/dead-letters/bulk/${job.id}` } });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
