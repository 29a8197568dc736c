import { redactSecrets, secretsOf } from "../../../masking/url";
import type { Readable } from "node:stream";
import { outboundRequest } from "../../../net/outbound-guard";
import { classifyHttpAnswer, classifyHttpError } from "./http-outcome";
import type { HttpSinkConfig } from "./http-config";
import type { RemoteSink, SinkResult, Submission } from "../sink";

// The HTTP sink: POST {kind, idempotency_key, observed_at, payload} with `Idempotency-Key: <stored key>`.
// The receiver deduplicates by that header, which is what makes a resend after a crash harmless.

const SNIPPET_BYTES = 1024;

export function httpSink(config: HttpSinkConfig, workerId: string): RemoteSink {
  // Every request's headers but its key, built once per sink rather than once per request.
  const headers = sinkHeaders(config, `redrive-worker/1 (${workerId})`);
  // A reason becomes the item's error, the record's reason and failure history, its timeline and its quarantine
  // group, all read by analysts: the sink's credentials (userinfo, query values, header values) leave it here,
  // before anything stores it, even when the receiver echoes them back.
  const secrets = secretsOf(config.url, config.headers);
  return {
    mode: "remote",
    ledgerOrigin: "http",
    concurrency: config.concurrency,
    submit: async (sub, signal) => withoutSecrets(await post(config, headers, sub, signal), secrets),
  };
}

function withoutSecrets(result: SinkResult, secrets: readonly string[]): SinkResult {
  return "reason" in result ? { ...result, reason: redactSecrets(result.reason, secrets) } : result;
}

export function requestBody(sub: Submission): string {
  return JSON.stringify({
    kind: sub.kind,
    idempotency_key: sub.idempotencyKey,
    observed_at: sub.observedAt,
    payload: sub.payload,
  });
}

/**
 * The stored key as an HTTP field value, byte for byte: its UTF-8 bytes (the client writes a header as a "byte
 * string", one Latin-1 character per byte; a character above U+00FF is refused, and é would go out as one byte). A key
 * with a control character, or with white space at either end (parsers trim it), cannot arrive verbatim in a
 * header: null, with why.
 */
export function idempotencyHeader(key: string): { value: string } | { problem: string } {
  const chars = [...key];
  const control = chars.findIndex((c) => (c < " " && c !== "\t") || c === "\u007f"); // HTAB may sit inside a field value
  if (control >= 0) {
    const code = (chars[control]?.codePointAt(0) ?? 0).toString(16).padStart(4, "0").toUpperCase();
    return { problem: `the idempotency key cannot be sent in an HTTP header: control character U+${code} at character ${control}` };
  }
  if (/^[ \t]|[ \t]$/.test(key))
    return { problem: "the idempotency key cannot be sent in an HTTP header: it starts or ends with white space, which HTTP trims" };
  return { value: Buffer.from(key, "utf8").toString("latin1") };
}

/**
 * The headers every request of a sink sends: the configured ones may replace the user agent (names compared in
 * lower case, as HTTP does: undici's request sends a name twice if it is given twice), never the content type (nor
 * the key, which each request adds last).
 */
function sinkHeaders(config: HttpSinkConfig, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = { "user-agent": userAgent };
  for (const [name, value] of Object.entries(config.headers ?? {})) headers[name.toLowerCase()] = value;
  return { ...headers, "content-type": "application/json" };
}

/**
 * A signal for one request: aborted by the worker's stop, or after `ms` with a TimeoutError (as
 * AbortSignal.timeout's). `done` lets both go once the exchange is over. One controller and one timer per request:
 * AbortSignal.any over AbortSignal.timeout costs a visible share of the sink's CPU per item (bench:replay's HTTP
 * drain) and leaves every request's signals for the garbage collector.
 */
export function requestSignal(stop: AbortSignal, ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  if (stop.aborted) {
    controller.abort(stop.reason);
    return { signal: controller.signal, done: () => {} };
  }
  const onStop = () => controller.abort(stop.reason);
  stop.addEventListener("abort", onStop, { once: true });
  const timer = setTimeout(() => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")), ms);
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
    },
  };
}

async function post(config: HttpSinkConfig, sinkWide: Record<string, string>, sub: Submission, stop: AbortSignal): Promise<SinkResult> {
  const header = idempotencyHeader(sub.idempotencyKey);
  // Deterministic: retrying cannot help, and a changed key would defeat the receiver's dedup. Poison, unsent.
  if ("problem" in header) return { outcome: "failed", reason: header.problem, permanent: true };
  // The timeout covers the whole exchange, answer and snippet included, as the signal stays on the body.
  const exchange = requestSignal(stop, config.timeoutMs);
  try {
    const res = await outboundRequest(config.url, {
      method: "POST",
      headers: { ...sinkWide, "idempotency-key": header.value },
      body: requestBody(sub),
      signal: exchange.signal,
    });
    const headers = {
      get: (name: string): string | null => {
        const v = res.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
      },
    };
    return classifyHttpAnswer({ status: res.statusCode, headers, bodySnippet: await snippet(res.body) }, new Date());
  } catch (err) {
    if (stop.aborted) return { outcome: "retry", reason: "aborted: the worker is stopping", retryAfterMs: null, slowDown: false };
    return classifyHttpError(err, config.timeoutMs);
  } finally {
    exchange.done();
  }
}

/**
 * The start of the body for error messages. A body that ends within it (the usual short answer) leaves the
 * connection to be reused; a longer one is cut off there, which closes the connection rather than reading on.
 */
async function snippet(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= SNIPPET_BYTES) break; // leaving the loop destroys the rest of the body
    }
  } catch {
    // a body cut short still leaves us the status
  }
  return Buffer.concat(chunks).toString("utf8").slice(0, SNIPPET_BYTES);
}
