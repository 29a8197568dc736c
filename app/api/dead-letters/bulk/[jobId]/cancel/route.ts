import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { cancelBulkJob } from "@/lib/dead-letters/triage/bulk-jobs";
import { BulkJobParamsSchema } from "@/lib/dead-letters/contract/bulk";

export const dynamic = "force-dynamic";

/** POST /api/dead-letters/bulk/{jobId}/cancel — stop after the current page; decided pages stay decided. */
export const POST = defineRoute(
  { access: { permission: "dead_letters:triage" }, params: BulkJobParamsSchema },
  async ({ params, now, principal, requestId }) =>
    cancelBulkJob(getDb().pool, params.jobId, {
      actor: actorOf(principal!),
      requestId,
      now,
      anyJob: can(principal!.role, "dead_letters:purge"),
    }),
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
