import type { JsonValue } from "@/lib/json/value";
import type { DeadLetterKind } from "@/lib/vocabulary/record";

// The payload part of a raw envelope as it was received (the spatial envelope's `feature`, the AFC record's
// `raw_payload`, itself JSON text when a producer stored it as a string), to diff against the working payload.
// Plain JSON.parse: the diff is for reading, the exact lexemes stay in the raw envelope shown beside it.

export function receivedPayload(
  kind: DeadLetterKind,
  rawEnvelope: string | null,
): { ok: true; value: JsonValue } | { ok: false; reason: string } {
  if (rawEnvelope === null) return { ok: false, reason: "The raw envelope was removed by retention." };
  let envelope: unknown;
  try {
    envelope = JSON.parse(rawEnvelope);
  } catch {
    return { ok: false, reason: "The raw envelope is not valid JSON." };
  }
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope))
    return { ok: false, reason: "The raw envelope is not a JSON object." };
  const member = (envelope as Record<string, unknown>)[kind === "spatial" ? "feature" : "raw_payload"];
  // A tap captured at the gate (POST /api/afc/taps) is stored as the tap itself: an ingested AFC record always
  // has raw_payload (the envelope schema requires it), so a raw text without one is the received tap.
  if (kind === "afc" && member === undefined) return { ok: true, value: envelope as JsonValue };
  if (member === undefined) return { ok: false, reason: `The raw envelope has no ${kind === "spatial" ? "feature" : "raw_payload"}.` };
  if (kind === "afc" && typeof member === "string") {
    try {
      return { ok: true, value: JSON.parse(member) as JsonValue };
    } catch {
      return { ok: true, value: member };
    }
  }
  return { ok: true, value: member as JsonValue };
}
