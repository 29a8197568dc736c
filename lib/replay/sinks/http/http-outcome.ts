import { parseRetryAfter } from "../../pacing/backoff";
import type { SinkResult } from "../sink";

// What an HTTP sink's answer means for the item. Pure, so every status is tested without a server.
//   2xx → applied (deduped when the receiver says Idempotent-Replayed: true)
//   409 → deduped (the receiver already has this key)
//   408, 429, 5xx, timeout, connection error → retry later (Retry-After honoured; 429/503 also slow the batch)
//   other 4xx (and 1xx/3xx: the sink follows no redirect) → failed
// Both `retry` and `failed` are tried again with backoff until the batch's attempt budget, then poison
// (lib/replay/engine/write-outcomes.ts); `failed` ignores Retry-After.

export interface HttpAnswer {
  status: number;
  headers: { get(name: string): string | null };
  /** the start of the response body, for the error message */
  bodySnippet: string;
}

function describe(a: HttpAnswer): string {
  const body = a.bodySnippet.replace(/\s+/g, " ").trim().slice(0, 300);
  return `HTTP ${a.status}${body ? `: ${body}` : ""}`;
}

export function classifyHttpAnswer(a: HttpAnswer, now: Date): SinkResult {
  const { status } = a;
  if (status >= 200 && status < 300) {
    const replayed = a.headers.get("idempotent-replayed")?.trim().toLowerCase() === "true";
    return { outcome: replayed ? "deduped" : "applied" };
  }
  if (status === 409) return { outcome: "deduped" };
  if (status === 408 || status === 429 || status >= 500) {
    return {
      outcome: "retry",
      reason: describe(a),
      retryAfterMs: parseRetryAfter(a.headers.get("retry-after"), now),
      slowDown: status === 429 || status === 503,
    };
  }
  return { outcome: "failed", reason: describe(a) };
}

/**
 * A request that produced no answer: timeout, refused/reset connection, DNS failure: worth a retry. Takes undici
 * request's errors (the code on the error) and fetch's (the code on its cause).
 */
export function classifyHttpError(err: unknown, timeoutMs: number): SinkResult {
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause ?? (e?.code ? e : undefined);
  // Refused by the outbound rule (lib/net/outbound-guard.ts) before anything was sent: its message says why and
  // what setting allows the address. A refusal, like a 4xx: retried with backoff, poison after the budget.
  if (cause?.code === "ERR_OUTBOUND_REFUSED" && cause.message) return { outcome: "failed", reason: cause.message };
  const timedOut = e?.name === "TimeoutError" || e?.name === "AbortError";
  const reason = timedOut
    ? `timed out after ${timeoutMs} ms`
    : `request failed: ${cause?.code ?? cause?.message ?? e?.message ?? String(err)}`;
  return { outcome: "retry", reason, retryAfterMs: null, slowDown: false };
}
