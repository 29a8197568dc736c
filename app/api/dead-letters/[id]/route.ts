import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { readDetailForReader } from "@/lib/dead-letters/query/detail";
import { answerOffThread } from "@/lib/api/off-thread-reads";
import { IdParamsSchema } from "@/lib/dead-letters/contract/record-id";
import { maskFor } from "@/lib/forensics/access";
import { auditUnmaskedRead } from "@/lib/forensics/reveal";
import { UnmaskQuerySchema } from "@/lib/forensics/forensics-schemas";
import { maskDetail } from "@/lib/dead-letters/query/mask-detail";
import { ServedDeadLetterDetailSchema } from "@/lib/dead-letters/contract/detail";

export const dynamic = "force-dynamic";

/**
 * GET /api/dead-letters/{id}[?unmask=1] — the record: raw envelope, payload, analysis, repaired geometry, failure
 * history. Card data is masked (lib/masking); holders of dead_letters:unmask get it in clear with unmask=1, audited.
 * A heavy record's answer (past 256 KB stored) is built on a worker thread and sent as it comes from there.
 */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: IdParamsSchema,
    query: UnmaskQuerySchema,
    openapi: {
      tag: "dead letters",
      summary: "One record: raw envelope, payload, analysis, failure history",
      responses: { 200: { description: "The record", schema: ServedDeadLetterDetailSchema }, 404: { description: "No such record" } },
    },
  },
  async ({ params, query, principal, requestId, now }) => {
    const mask = maskFor(principal, query.unmask);
    const read = await readDetailForReader(getDb().pool, principal!.scope, params.id);
    if (!mask) await auditUnmaskedRead(getDb().pool, params.id, "detail", { actor: actorOf(principal!), requestId, now });
    if (read.heavy) return answerOffThread("detail", { id: params.id, rules: mask });
    return maskDetail(read.detail, mask);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
