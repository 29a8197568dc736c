import { classifyHttpAnswer, classifyHttpError } from "../http-outcome";
import type { HttpSinkConfig } from "../schemas";
import type { RemoteSink, SinkResult, Submission } from "./types";

// The HTTP sink: POST {kind, idempotency_key, observed_at, payload} with `Idempotency-Key: <stored key>`.
// The receiver deduplicates by that header, which is what makes a resend after a crash harmless.

const SNIPPET_BYTES = 1024;

export function httpSink(config: HttpSinkConfig, workerId: string): RemoteSink {
  const userAgent = `redrive-worker/1 (${workerId})`;
  return {
    mode: "remote",
    concurrency: config.concurrency,
    submit: (sub, signal) => post(config, userAgent, sub, signal),
  };
}

export function requestBody(sub: Submission): string {
  return JSON.stringify({
    kind: sub.kind,
    idempotency_key: sub.idempotencyKey,
    observed_at: sub.observedAt.toISOString(),
    payload: sub.payload,
  });
}

async function post(config: HttpSinkConfig, userAgent: string, sub: Submission, stop: AbortSignal): Promise<SinkResult> {
  try {
    const res = await fetch(config.url, {
      method: "POST",
      headers: { "user-agent": userAgent, ...config.headers, "content-type": "application/json", "idempotency-key": sub.idempotencyKey },
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
async function snippet(res: Response): Promise<string> {
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
