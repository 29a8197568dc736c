import { describe, expect, it } from "vitest";
import { receivedPayload } from "./received-payload";

describe("receivedPayload", () => {
  it("takes the feature of a spatial envelope and the raw_payload of an AFC record (parsing JSON text)", () => {
    expect(receivedPayload("spatial", '{"kind":"spatial","feature":{"type":"Feature","geometry":null}}')).toEqual({
      ok: true,
      value: { type: "Feature", geometry: null },
    });
    expect(receivedPayload("afc", '{"kind":"afc","raw_payload":{"event_id":"e"}}')).toEqual({ ok: true, value: { event_id: "e" } });
    expect(receivedPayload("afc", '{"kind":"afc","raw_payload":"{\\"event_id\\":\\"e\\"}"}')).toEqual({
      ok: true,
      value: { event_id: "e" },
    });
  });

  it("takes a tap captured at the gate (stored as the tap itself) as the received payload", () => {
    expect(receivedPayload("afc", '{"event_id":"e","fare_amount_cents":"275","card_number":"x"}')).toEqual({
      ok: true,
      value: { event_id: "e", fare_amount_cents: "275", card_number: "x" },
    });
  });

  it("explains what it cannot read", () => {
    expect(receivedPayload("afc", null)).toMatchObject({ ok: false });
    expect(receivedPayload("afc", "{broken")).toEqual({ ok: false, reason: "The raw envelope is not valid JSON." });
    expect(receivedPayload("spatial", '{"kind":"spatial"}')).toEqual({ ok: false, reason: "The raw envelope has no feature." });
  });
});
