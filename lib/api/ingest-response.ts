import "server-only";
import type pg from "pg";
import { parseJsonOrPython } from "../json/lossless";
import { AppError, notUtf8Body } from "../errors/app-error";
import type { Principal } from "../auth/principal";
import { geometryLimits } from "../env";
import { sharedNormalizePool, type NormalizePool } from "../dead-letters/ingest/normalize-pool";
import { ingestStream, loadSourceSettings } from "../dead-letters/ingest/pipeline";
import { decodeUtf8, RECORD_TOO_LARGE, splitJson, splitNdjsonBytes, type BodyFormat, type RecordText } from "../dead-letters/ingest/split";

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
 * A JSON body (not NDJSON) that is one value and not JSON at all — `{"kind":`, a truncated upload — is a bad
 * request, answered 400 before anything is streamed, like every other JSON route; with two or more records
 * (an array, concatenated values) a malformed one rejects that record only. Reads at most the first two
 * records, and gives back an iterator over all of them.
 */
async function checkWholeBody(
  records: AsyncGenerator<RecordText>,
  sawText: () => boolean,
  threads: NormalizePool | null,
): Promise<AsyncGenerator<RecordText>> {
  let first = await records.next();
  if (first.done && !sawText()) {
    throw new AppError("invalid_json", "body: empty; send one envelope, a JSON array or NDJSON", {
      issues: [{ path: "body", message: "required" }],
    });
  }
  const second = first.done ? first : await records.next();
  if (!first.done && second.done) {
    if (first.value.error === RECORD_TOO_LARGE) {
      throw new AppError("payload_too_large", `body: ${RECORD_TOO_LARGE}; nothing was stored`, {
        issues: [{ path: "body", message: RECORD_TOO_LARGE }],
      });
    }
    // On a thread when there is one: the body may be one 12 MB envelope, seconds of parsing. The record goes on
    // as the thread was sent it (a long text as shared bytes, encoded once).
    const checked = threads ? await threads.parseProblem(first.value) : { problem: parseProblemHere(first.value.text), rec: first.value };
    const { problem } = checked;
    first = { done: false, value: checked.rec };
    if (problem !== null) {
      throw new AppError("invalid_json", `body: not valid JSON (${problem}); nothing was stored`, {
        issues: [{ path: "body", message: "not valid JSON" }],
      });
    }
  }
  return (async function* () {
    if (!first.done) yield first.value;
    if (!second.done) yield second.value;
    yield* records;
  })();
}

function parseProblemHere(text: string): string | null {
  try {
    parseJsonOrPython(text);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
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
  let sawText = false;
  const text = async function* (chunks: AsyncIterable<string>) {
    try {
      for await (const chunk of chunks) {
        if (!sawText && chunk.trim() !== "") sawText = true;
        yield chunk;
      }
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      throw notUtf8Body();
    }
  };
  const bytes = req.body as unknown as AsyncIterable<Uint8Array>;
  // NDJSON from bytes, a line at a time (a line that is not UTF-8 rejects only itself); a JSON body is one text.
  const threads = sharedNormalizePool();
  const records =
    format === "ndjson" ? splitNdjsonBytes(bytes) : await checkWholeBody(splitJson(text(decodeUtf8(bytes))), () => sawText, threads);
  const encoder = new TextEncoder();
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode('{"results":['));
      let first = true;
      try {
        const sources = await loadSourceSettings(pool);
        const actor = { id: principal.userId, email: principal.email, role: principal.role };
        const limits = geometryLimits();
        for await (const results of ingestStream(pool, records, { actor, requestId, sources, limits, normalizer: threads })) {
          const text = results.map((r) => JSON.stringify(r)).join(",");
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
