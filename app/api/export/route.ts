import { defineRoute, otherMethods } from "@/lib/api/handler";
import { streamOffThread } from "@/lib/api/off-thread-reads";
import { actorOf } from "@/lib/auth/principal";
import { getDb } from "@/lib/db/client";
import { countMatching } from "@/lib/dead-letters/query/facets";
import { maskFor } from "@/lib/forensics/access";
import { CONTENT_TYPES, EXTENSIONS } from "@/lib/forensics/export/format";
import { assertExportable, exportFilter } from "@/lib/forensics/export/stream";
import { ExportQuerySchema } from "@/lib/forensics/forensics-schemas";

export const dynamic = "force-dynamic";

/**
 * GET /api/export?format=ndjson|csv|geojson&<list filters>[&order=desc|asc][&excel=1][&unmask=1] — the filter's records,
 * streamed in the list's order (newest observation first unless order=asc); excel=1 starts a CSV with a UTF-8 BOM.
 * GeoJSON of a filter without spatial records is refused (422) rather than answered with an empty collection.
 * x-redrive-estimated-count gives the UI a denominator for its progress (exact for facet filters);
 * x-redrive-masked says whether values were masked for this reader (the file name says it too).
 * The records are read, masked and formatted on an ingest thread (off-thread-reads.ts), which also audits the export.
 */
export const GET = defineRoute(
  {
    access: { permission: "dead_letters:export", auditedRead: true },
    query: ExportQuerySchema,
    openapi: {
      tag: "forensics",
      summary: "The filter's records as NDJSON, CSV or GeoJSON (streamed, audited)",
      description:
        "Audited in the reader's name: with a browser session, only when Redrive's own page started it (Sec-Fetch-Site same-origin or none); 403 otherwise.",
      responses: { 200: { description: "The file (x-redrive-estimated-count gives the expected rows)" } },
    },
  },
  async ({ query, principal, requestId, now }) => {
    const { format, unmask, excel, order, ...filter } = query;
    const mask = maskFor(principal, unmask);
    const pool = getDb().pool;
    await assertExportable(pool, principal!.scope, format, filter);
    const exported = exportFilter(format, filter);
    const estimate = exported === null ? 0 : filter.bbox || filter.q ? null : await countMatching(pool, principal!.scope, exported);
    const stream = streamOffThread("export", {
      format,
      filter,
      scope: principal!.scope,
      mask,
      order,
      excel,
      actor: actorOf(principal!),
      requestId,
      now,
    });
    const stamp = now.toISOString().slice(0, 19).replace(/[-:]/g, "");
    return new Response(stream, {
      headers: {
        "content-type": CONTENT_TYPES[format],
        // A masked export re-imported elsewhere would hold the placeholders as data: its name says it is masked.
        "content-disposition": `attachment; filename="dead-letters-${stamp}${mask ? "-masked" : ""}.${EXTENSIONS[format]}"`,
        "x-redrive-masked": mask ? "true" : "false",
        "cache-control": "no-store",
        ...(estimate === null ? {} : { "x-redrive-estimated-count": String(estimate) }),
      },
    });
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
