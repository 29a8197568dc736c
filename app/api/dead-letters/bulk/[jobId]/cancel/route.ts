import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { cancelBulkJob } from "@/lib/dead-letters/triage/bulk-jobs";
import { BulkJobParamsSchema, BulkJobSchema } from "@/lib/dead-letters/contract/bulk";

export const dynamic = "force-dynamic";

/** POST /api/dead-letters/bulk/{jobId}/cancel — stop after the current page; decided pages stay decided. */
export const POST = defineRoute(
  {
    access: { permission: "dead_letters:triage" },
    params: BulkJobParamsSchema,
    openapi: {
      tag: "triage",
      summary: "Stop a bulk job after its current page",
      description: "Pages already applied stay applied (each was its own transaction); the job ends `cancelled` with its counts.",
      responses: {
        200: { description: "The job, cancel requested", schema: BulkJobSchema },
        404: { description: "No such job" },
        409: { description: "The job already ended" },
      },
    },
  },
  async ({ params, now, principal, requestId }) =>
    cancelBulkJob(getDb().pool, params.jobId, {
      actor: actorOf(principal!),
      scope: principal!.scope,
      requestId,
      now,
      anyJob: can(principal!.role, "dead_letters:purge"),
    }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
