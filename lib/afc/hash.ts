// The AFC identity hash: the idempotency key a replayed tap is deduplicated on. It must equal, byte for byte,
// what the Python producers compute:
//   identity = {k: payload.get(k) for k in ("event_id", "device_id", "tap_timestamp", "fare_amount_cents")}
//   hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()
// A different hash for the same tap means the ledger cannot see the duplicate and the rider is charged twice.
import { hash } from "node:crypto";
import { isJsonObject } from "../json/lossless";
import { pythonJsonDumps } from "../json/python";

export const IDENTITY_FIELDS = ["event_id", "device_id", "tap_timestamp", "fare_amount_cents"] as const;

/** 64 lowercase hex characters, the only accepted form of a producer-supplied event_hash. */
export const EVENT_HASH_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The canonical identity text of a tap, or null when the tap is not a JSON object (there is no identity to
 * take; Python's `payload.get` would have raised). Pass the value from `parseLossless` so number lexemes are
 * intact; plain JS values are accepted with the caveat documented on `pythonJsonDumps`.
 */
export function canonicalIdentity(tap: unknown): string | null {
  if (!isJsonObject(tap)) return null;
  const identity: Record<string, unknown> = {};
  for (const field of IDENTITY_FIELDS) {
    identity[field] = Object.hasOwn(tap, field) ? tap[field] : null;
  }
  return pythonJsonDumps(identity);
}

/** SHA-256 hex of `canonicalIdentity(tap)`, or null when the tap is not an object. */
export function eventHash(tap: unknown): string | null {
  const canonical = canonicalIdentity(tap);
  return canonical === null ? null : sha256Hex(canonical);
}

/** One-shot crypto.hash (Node >= 20.12): cheaper than createHash().update().digest() for short input.
 * The canonical text is pure ASCII (ensure_ascii), so its UTF-8 bytes are unambiguous even for lone surrogates. */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}
