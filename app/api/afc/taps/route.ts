import { z } from "zod";
import { defineRoute, otherMethods, readBodyBytes } from "@/lib/api/handler";
import { actorOf } from "@/lib/auth/principal";
import { captureAnswer } from "@/lib/dead-letters/ingest/arrival-outcome";
import { ingestAll } from "@/lib/dead-letters/ingest/ingest";
import { MAX_RECORD_BYTES } from "@/lib/dead-letters/ingest/split";
import { getDb } from "@/lib/db/client";
import { isNdjson } from "@/lib/api/ingest-response";
import { ErrorBodySchema } from "@/lib/api/openapi";

/** Up to 10,000 capture records a request (tap-gate.ts), ~1.6 KB each at most: the record limit, as ingest applies it. */
const CAPTURE_MAX_BODY_BYTES = MAX_RECORD_BYTES;

export const dynamic = "force-dynamic";

const Query = z.object({ source: z.string().min(1).max(200).optional() });

/**
 * POST /api/afc/taps — the capture boundary: validates raw taps (`[tap, …]`, `{source, taps}`, one tap, or
 * NDJSON with application/x-ndjson), answers which passed, and captures the failing ones into the DLQ in one
 * transaction.
 */
export const POST = defineRoute(
  {
    access: { permission: "dead_letters:ingest" },
    query: Query,
    openapi: {
      tag: "ingest",
      summary: "The AFC capture boundary: validate taps, capture the failing ones",
      responses: {
        200: { description: "Per-tap results: passed, captured or duplicate (without the id when another sender captured the record)" },
        413: { description: "More than 10,000 taps, or a body over 16 MB (the record limit)", schema: ErrorBodySchema },
      },
      rawBody: {
        contentTypes: ["application/json", "application/x-ndjson"],
        description:
          "`[tap, …]`, `{source, taps}` or one tap, or NDJSON (one tap per line); number lexemes are kept. All or nothing: a line that is not JSON refuses the request (400, the line named)",
      },
    },
  },
  async ({ req, query, principal, requestId, now }) => {
    // Any other content type is read as JSON, as before (a bare `curl -d` sends form-urlencoded).
    const body = await readBodyBytes(req, CAPTURE_MAX_BODY_BYTES);
    const format = isNdjson(req.headers.get("content-type")) ? "ndjson" : "json";
    const outcomes = await ingestAll(
      { via: "taps", body, format, ...(query.source !== undefined ? { source: query.source } : {}) },
      { pool: getDb().pool, actor: actorOf(principal!), requestId, clock: () => now },
    );
    return captureAnswer(outcomes);
  },
);

/** Other methods: 405 with Allow, in JSON. */
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
