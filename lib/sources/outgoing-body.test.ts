import { describe, expect, it } from "vitest";
import { outgoingBody } from "./outgoing-body";

const text = (r: ReturnType<typeof outgoingBody>) => (r.ok ? r.body.toString("utf8") : r.reason);

describe("outgoingBody", () => {
  const feature = { type: "Feature", id: "f-1", properties: {}, geometry: { type: "Point", coordinates: [1, 2] } };

  it("spatial: the envelope as received with the feature replaced and replay_count one more, lexemes kept", () => {
    const raw =
      '{"kind":"spatial","idempotency_key":"k-1","observed_at":1700000000.123456789,"replay_count":1,"feature":{"type":"Feature","geometry":null},"x":1.10}';
    const out = JSON.parse(text(outgoingBody("spatial", raw, feature)));
    expect(out).toMatchObject({ kind: "spatial", idempotency_key: "k-1", replay_count: 2, feature });
    expect(text(outgoingBody("spatial", raw, feature))).toContain('"observed_at":1700000000.123456789');
    expect(text(outgoingBody("spatial", raw, feature))).toContain('"x":1.10');
  });

  it("spatial: a first replay counts 1", () => {
    const out = JSON.parse(text(outgoingBody("spatial", '{"feature":{}}', feature)));
    expect(out.replay_count).toBe(1);
  });

  it("afc: a raw tap goes back as edited; a capture record keeps its envelope around the edited raw_payload", () => {
    const tap = { event_id: "e-1", device_id: "d-1", fare_cents: 250 };
    expect(JSON.parse(text(outgoingBody("afc", '{"event_id":"e-1","fare_cents":"x"}', tap)))).toEqual(tap);
    const record = '{"kind":"afc","raw_payload":{"event_id":"e-1"},"failure_reason":"bad fare","event_hash":"ab"}';
    expect(JSON.parse(text(outgoingBody("afc", record, tap)))).toEqual({
      kind: "afc",
      raw_payload: tap,
      failure_reason: "bad fare",
      event_hash: "ab",
    });
    const asText = '{"kind":"afc","raw_payload":"{\\"event_id\\":\\"e-1\\"}"}';
    expect(JSON.parse(JSON.parse(text(outgoingBody("afc", asText, tap))).raw_payload)).toEqual(tap);
  });

  it("says why when there is nothing to publish", () => {
    expect(outgoingBody("spatial", null, feature)).toMatchObject({ ok: false, reason: expect.stringContaining("retention") });
    expect(outgoingBody("spatial", "not json", feature)).toMatchObject({ ok: false });
  });
});
