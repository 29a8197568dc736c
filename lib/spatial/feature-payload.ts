import type { JsonValue } from "../json/value";

/**
 * Whether a spatial record's payload is a GeoJSON Feature, the only thing a repair can be previewed, approved or
 * replayed for. A record kept as poison may hold something else: a broker message that was not JSON (its text,
 * or { base64 }), or an envelope whose `feature` was not a Feature.
 */
export function isFeaturePayload(payload: unknown): payload is { type: "Feature"; [key: string]: JsonValue } {
  return typeof payload === "object" && payload !== null && !Array.isArray(payload) && (payload as { type?: unknown }).type === "Feature";
}
