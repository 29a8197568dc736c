import type { SinkResult } from "../sink";

// What an error from the target database means for the page's items. Pure, so each class is tested without a
// server. Worth a retry: the connection (refused, reset, timed out, the server shutting down), too many
// connections, a deadlock or serialization failure, a statement cancelled by its timeout. Anything else — a missing
// table or column, a wrong type, a constraint, a permission — is the target's configuration: `failed`, retried
// with backoff in case the team fixes it, and counted towards the batch's pause threshold like an HTTP 4xx.

const RETRY_CLASSES = ["08", "40", "53", "57"];
const RETRY_CODES = new Set(["55P03"]);
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "EPIPE",
  "ENOTFOUND",
]);

export function classifyTargetError(err: unknown, where: string): Extract<SinkResult, { outcome: "retry" | "failed" }> {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; detail?: unknown; column?: unknown };
  const code = typeof e.code === "string" ? e.code : null;
  const message = typeof e.message === "string" && e.message !== "" ? e.message : String(err);
  const detail = typeof e.detail === "string" && e.detail !== "" ? ` (${e.detail})` : "";
  const sqlState = code && /^[0-9A-Z]{5}$/.test(code) ? code : null;
  const reason = `${where}: ${message}${detail}${sqlState ? ` [SQLSTATE ${sqlState}]` : ""}`;
  const transient =
    (sqlState !== null && (RETRY_CLASSES.includes(sqlState.slice(0, 2)) || RETRY_CODES.has(sqlState))) ||
    (code !== null && NETWORK_CODES.has(code)) ||
    (sqlState === null && /connection|timeout|terminated|after calling end/i.test(message));
  return transient ? { outcome: "retry", reason, retryAfterMs: null, slowDown: false } : { outcome: "failed", reason };
}
