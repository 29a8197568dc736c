import { redactSecrets, secretsOf } from "../../masking/url";
import { outboundFetch } from "../../net/outbound-guard";
import { classifyHttpAnswer, classifyHttpError } from "./http-outcome";
import type { HttpSinkConfig } from "../batch/batch-schemas";
import type { RemoteSink, SinkResult, Submission } from "./sink";

// The HTTP sink: POST {kind, idempotency_key, observed_at, payload} with `Idempotency-Key: <stored key>`.
// The receiver deduplicates by that header, which is what makes a resend after a crash harmless.

const SNIPPET_BYTES = 1024;

export function httpSink(config: HttpSinkConfig, workerId: string): RemoteSink {
  const userAgent = `redrive-worker/1 (${workerId})`;
  // A reason becomes the item's error, the record's reason and failure history, its timeline and its quarantine
  // group, all read by analysts: the sink's credentials (userinfo, query values, header values) leave it here,
  // before anything stores it, even when the receiver echoes them back.
  const secrets = secretsOf(config.url, config.headers);
  return {
    mode: "remote",
    ledgerOrigin: "http",
    concurrency: config.concurrency,
    submit: async (sub, signal) => withoutSecrets(await post(config, userAgent, sub, signal), secrets),
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
 * The stored key as an HTTP field value, byte for byte: its UTF-8 bytes (fetch takes a header as a "byte
 * string", one character per byte; a character above U+00FF threw, and é went out as one Latin-1 byte). A key
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

async function post(config: HttpSinkConfig, userAgent: string, sub: Submission, stop: AbortSignal): Promise<SinkResult> {
  const header = idempotencyHeader(sub.idempotencyKey);
  // Deterministic: retrying cannot help, and a changed key would defeat the receiver's dedup. Poison, unsent.
  if ("problem" in header) return { outcome: "failed", reason: header.problem, permanent: true };
  try {
    const res = await outboundFetch(config.url, {
      method: "POST",
      headers: { "user-agent": userAgent, ...config.headers, "content-type": "application/json", "idempotency-key": header.value },
      body: requestBody(sub),
      redirect: "manual",
      signal: AbortSignal.any([stop, AbortSignal.timeout(config.timeoutMs)]),
    });
    return classifyHttpAnswer({ status: res.status, headers: res.headers, bodySnippet: await snippet(res) }, new Date());
  } catch (err) {
    if (stop.aborted) return { outcome: "retry", reason: "aborted: the worker is stopping", retryAfterMs: null, slowDown: false };
    return classifyHttpError(err, config.timeoutMs);
  }
}

/** The start of the body for error messages; the rest is discarded so the connection can be reused. */
async function snippet(res: Awaited<ReturnType<typeof outboundFetch>>): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < SNIPPET_BYTES) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks).toString("utf8");
      chunks.push(value);
      size += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // a body cut short still leaves us the status
  }
  return Buffer.concat(chunks).toString("utf8").slice(0, SNIPPET_BYTES);
}
