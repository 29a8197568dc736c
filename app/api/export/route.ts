import { defineRoute, otherMethods } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { countMatching } from "@/lib/dead-letters/facets";
import { maskFor } from "@/lib/forensics/access";
import { auditedExport } from "@/lib/forensics/export/audited";
import { CONTENT_TYPES, EXTENSIONS } from "@/lib/forensics/export/format";
import { ExportQuerySchema } from "@/lib/forensics/schemas";

export const dynamic = "force-dynamic";

/**
 * GET /api/export?format=ndjson|csv|geojson&<list filters>[&unmask=1] — the filter's records, streamed.
 * x-redrive-estimated-count gives the UI a denominator for its progress (exact for facet filters).
 */
export const GET = defineRoute({ access: { permission: "dead_letters:export" }, query: ExportQuerySchema }, async ({ query, principal, requestId, now }) => {
  const { format, unmask, ...filter } = query;
  const mask = maskFor(principal, unmask);
  const pool = getDb().pool;
  const estimate = filter.bbox || filter.q ? null : await countMatching(pool, filter);
  const { stream } = auditedExport(pool, { format, filter, mask }, { actor: actorOf(principal!), requestId, now });
  const stamp = now.toISOString().slice(0, 19).replace(/[-:]/g, "");
  return new Response(stream, {
    headers: {
      "content-type": CONTENT_TYPES[format],
      "content-disposition": `attachment; filename="dead-letters-${stamp}.${EXTENSIONS[format]}"`,
      "cache-control": "no-store",
      ...(estimate === null ? {} : { "x-redrive-estimated-count": String(estimate) }),
    },
  });
});

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
