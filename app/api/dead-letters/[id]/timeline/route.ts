import { answer, defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { IdParamsSchema } from "@/lib/dead-letters/contract/record-id";
import { maskFor } from "@/lib/forensics/access";
import { auditUnmaskedRead } from "@/lib/forensics/reveal";
import { TimelineQuerySchema } from "@/lib/forensics/forensics-schemas";
import { recordTimeline } from "@/lib/forensics/timeline";

export const dynamic = "force-dynamic";

/** GET /api/dead-letters/{id}/timeline[?unmask=1][&download=1] — every event of the record's life, in order. */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:read" },
    params: IdParamsSchema,
    query: TimelineQuerySchema,
    openapi: {
      tag: "forensics",
      summary: "Every event of a record's life, in order",
      description: "Masked by default; unmask=1 (auditors) is audited. download=1 answers a file.",
      responses: { 200: { description: "The timeline" }, 404: { description: "No such record" } },
    },
  },
  async ({ params, query, principal, requestId, now }) => {
    const mask = maskFor(principal, query.unmask);
    const timeline = await recordTimeline(getDb().pool, principal!.scope, params.id, mask);
    if (!mask) await auditUnmaskedRead(getDb().pool, params.id, "timeline", { actor: actorOf(principal!), requestId, now });
    return answer(
      timeline,
      query.download ? { headers: { "content-disposition": `attachment; filename="dead-letter-${params.id}-timeline.json"` } } : {},
    );
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
