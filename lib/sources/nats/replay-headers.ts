import type { Headers, HeaderValue } from "../connector";

// Which of a dead letter's recorded headers travel back with it. Pure.
//
// `Nats-*` headers belong to the server: Nats-Msg-Id would make JetStream drop the replay as a duplicate of the
// original within the stream's window, and Nats-Expected-* would turn into stale assertions. The connector sets
// the ones it needs itself (msgID, expected stream). A previous replay's Idempotency-Key gives way to this one's.

export const IDEMPOTENCY_HEADER = "Idempotency-Key";

function isServerHeader(key: string): boolean {
  const k = key.toLowerCase();
  return k.startsWith("nats-") || k === IDEMPOTENCY_HEADER.toLowerCase();
}

function asText(value: HeaderValue): string | null {
  if (value === null) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** [name, value] pairs in the recorded order; a repeated header stays repeated. */
export function replayHeaders(recorded: Headers, key: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(recorded)) {
    if (isServerHeader(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      const text = asText(v);
      if (text !== null) out.push([name, text]);
    }
  }
  out.push([IDEMPOTENCY_HEADER, key]);
  return out;
}

/** Why a header cannot be sent at all (NATS header lines end at CR/LF; names are visible ASCII without ':'), or null. */
export function unsendableHeader(pairs: ReadonlyArray<[string, string]>): string | null {
  for (const [name, value] of pairs) {
    if (!/^[!-9;-~]+$/.test(name)) return `header name ${JSON.stringify(name)} is not visible ASCII without ':'`;
    if (/[\r\n]/.test(value)) return `header ${name}'s value contains CR or LF`;
  }
  return null;
}
