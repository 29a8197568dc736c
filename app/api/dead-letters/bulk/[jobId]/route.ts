import { defineRoute, otherMethods } from "@/lib/api/handler";
import { getDb } from "@/lib/db/client";
import { pollBulkJob } from "@/lib/dead-letters/triage/bulk-jobs";
import { runInBackground } from "@/lib/api/run-in-background";
import { BulkJobParamsSchema, BulkJobSchema } from "@/lib/dead-letters/contract/bulk";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/bulk/{jobId} — a bulk job's progress; a job whose runner died is resumed by the poll. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:triage" },
    params: BulkJobParamsSchema,
    openapi: {
      tag: "triage",
      summary: "A bulk job's progress",
      description:
        "processed of matched, updated, skipped by reason; status running → completed | cancelled | failed. Progress is committed with each page's changes. A job whose runner stopped reporting for 10 s is resumed by this poll (or by any server's housekeeping within seconds).",
      responses: { 200: { description: "The job", schema: BulkJobSchema }, 404: { description: "No such job" } },
    },
  },
  async ({ params, now, principal }) => {
    const pool = getDb().pool;
    const { job, resume } = await pollBulkJob(pool, { userId: principal!.userId, scope: principal!.scope }, params.jobId, now);
    if (resume) runInBackground(pool, job.id);
    return job;
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
