import "server-only";
import type pg from "pg";
import { AppError } from "../errors/app-error";
import type { Principal } from "../auth/principal";
import { envelopeAnswer } from "../dead-letters/ingest/arrival-outcome";
import { ingest } from "../dead-letters/ingest/ingest";
import type { BodyFormat } from "../dead-letters/ingest/split";
import { maskAnswer } from "../masking/answer";
import { configuredMaskRules } from "../masking/config";

const NDJSON_TYPES = new Set(["application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"]);
const JSON_TYPES = new Set(["application/json", "text/json"]);

const mediaType = (contentType: string | null): string => (contentType ?? "application/json").split(";")[0]?.trim().toLowerCase() ?? "";

/** application/x-ndjson and its aliases. */
export function isNdjson(contentType: string | null): boolean {
  return NDJSON_TYPES.has(mediaType(contentType));
}

export function bodyFormat(contentType: string | null): BodyFormat {
  const type = mediaType(contentType);
  if (NDJSON_TYPES.has(type)) return "ndjson";
  if (JSON_TYPES.has(type) || type === "") return "json";
  throw new AppError(
    "unsupported_media_type",
    `content-type: ${type} is not accepted; send application/json (one envelope or an array) or application/x-ndjson`,
    {
      issues: [{ path: "content-type", message: "must be application/json or application/x-ndjson" }],
    },
  );
}

/**
 * Streams `{"results":[…]}` while the body is still arriving: results are written per stored batch, so
 * neither the request nor the reply is ever held whole. A failure after the first byte (database gone) ends
 * the array and adds an "error" member naming the first index that was not stored.
 */
export async function ingestResponse(req: Request, pool: pg.Pool, principal: Principal, requestId: string): Promise<Response> {
  const format = bodyFormat(req.headers.get("content-type"));
  if (!req.body)
    throw new AppError("bad_request", "body: empty; send one envelope, a JSON array or NDJSON", {
      issues: [{ path: "body", message: "required" }],
    });
  const actor = { id: principal.userId, email: principal.email, role: principal.role };
  // A refusal of the whole body (empty, one envelope that is not JSON or is over the limit) is thrown here, before
  // the answer starts.
  const outcomes = await ingest(
    { via: "envelopes", body: req.body as unknown as AsyncIterable<Uint8Array>, format },
    { pool, actor, requestId },
  );
  const encoder = new TextEncoder();
  const rules = configuredMaskRules();
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode('{"results":['));
      let first = true;
      try {
        for await (const results of outcomes) {
          // Streamed past defineRoute's last pass: a refusal gets it here (its errors and key may quote what was
          // sent); the others hold an index, a status and an id only.
          const text = results
            .map((r) => {
              const answer = envelopeAnswer(r);
              return JSON.stringify(answer.status === "rejected" ? maskAnswer(answer, rules) : answer);
            })
            .join(",");
          controller.enqueue(encoder.encode((first ? "" : ",") + text));
          first = false;
          next += results.length;
        }
        controller.enqueue(encoder.encode("]}"));
      } catch (err) {
        console.error(`[ingest] ${requestId} failed after ${next} records`, err);
        controller.enqueue(
          encoder.encode(
            `],"error":${JSON.stringify({ code: "internal", message: `ingest stopped: records from index ${next} on were not stored`, requestId })}}`,
          ),
        );
      }
      controller.close();
    },
  });
  return new Response(stream, { headers: { "content-type": "application/json; charset=utf-8" } });
}
