import { parse, stringify } from "lossless-json";
import { isJsonObject } from "../json/lossless";
import type { JsonValue } from "../json/value";
import type { DeadLetterKind } from "../vocabulary/record";

// What goes back to a dead letter's original destination: the message as it was received, with the working
// payload in its place, so the original consumer reads its own format.
// - spatial: the envelope with its `feature` replaced by the re-validated (repaired or edited) feature and
//   `replay_count` one more;
// - AFC: the tap as edited; in a capture record (the body held raw_payload), the record with that raw_payload.
// Members the producer sent keep their text (number lexemes included): the envelope is read losslessly.

export type OutgoingBody = { ok: true; body: Buffer } | { ok: false; reason: string };

export function outgoingBody(kind: DeadLetterKind, rawEnvelope: string | null, payload: JsonValue): OutgoingBody {
  if (rawEnvelope === null) return { ok: false, reason: "the message as received is gone (retention): nothing to publish back" };
  let received: unknown;
  try {
    received = parse(rawEnvelope);
  } catch {
    received = undefined;
  }
  if (kind === "spatial") {
    if (!isJsonObject(received)) return { ok: false, reason: "the message as received is not a spatial envelope: nothing to publish back" };
    const count = received.replay_count;
    const previous = typeof count === "number" ? count : Number(String(count ?? 0));
    const envelope = { ...received, feature: payload, replay_count: (Number.isFinite(previous) ? previous : 0) + 1 };
    return { ok: true, body: Buffer.from(stringify(envelope) ?? "", "utf8") };
  }
  if (isJsonObject(received) && Object.hasOwn(received, "raw_payload")) {
    // A payload the producer sent as JSON text goes back as text.
    const raw = typeof received.raw_payload === "string" ? JSON.stringify(payload) : payload;
    return { ok: true, body: Buffer.from(stringify({ ...received, raw_payload: raw }) ?? "", "utf8") };
  }
  return { ok: true, body: Buffer.from(JSON.stringify(payload), "utf8") };
}
