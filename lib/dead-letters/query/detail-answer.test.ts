import { describe, expect, it } from "vitest";
import { maskRules } from "../../masking/rules";
import { heavyDetailJson, type HeavyTexts } from "./detail-answer";
import type { DetailRow } from "./detail-row";

// The heavy path builds the same answer the route and defineRoute build for an ordinary record: parsed from the
// columns' text, masked by field and by the last pass, or in clear for an unmask reader.

const CARD = "4111111111111111";

const row: DetailRow = {
  id: "7",
  kind: "afc",
  source: "gates",
  idempotency_key: "k".repeat(64),
  entity_key: "device:D1",
  event_id: `ev-${CARD}`,
  device_id: "D1",
  source_message_id: null,
  observed_at: "2026-01-01T00:00:00.000000Z",
  first_seen_at: new Date("2026-01-01T00:00:01Z"),
  last_failed_at: new Date("2026-01-01T00:00:01Z"),
  updated_at: new Date("2026-01-01T00:00:01Z"),
  raw_envelope: null,
  payload: null,
  first_failure_reason: "schema",
  reason: "schema",
  reason_group: "schema",
  failure_class: "poison",
  class_reason: null,
  status: "pending",
  replay_count: 0,
  failure_count: 1,
  version: 1,
  analysis: null,
  repaired_geometry: null,
  approved_repair: null,
  origin: null,
  edited: false,
};

const texts: HeavyTexts = {
  raw_envelope: `{"payload":{"card_pan":"${CARD}","n":1}}`,
  payload: `{"card_pan": "${CARD}", "samples": [1, 2, 3]}`,
  analysis: null,
  repaired_geometry: null,
  origin: `{"headers":{"x-note":"card ${CARD}"}}`,
};

describe("heavyDetailJson", () => {
  it("parses the heavy columns and masks every card number for a reader without unmask", () => {
    const json = heavyDetailJson(
      row,
      [{ attempt: 1, at: new Date("2026-01-01T00:00:01Z"), reason: "schema", origin: "ingest", batch_id: null, also_sent_by: null }],
      texts,
      maskRules(),
    );
    expect(json).not.toContain(CARD);
    const answer = JSON.parse(json) as Record<string, unknown>;
    expect(answer).toMatchObject({
      id: "7",
      payload: { samples: [1, 2, 3] },
      maskedPaths: expect.arrayContaining(["/payload/card_pan"]),
      failures: [{ attempt: 1, at: "2026-01-01T00:00:01.000Z", reason: "schema" }],
    });
    expect(answer.eventId).toMatch(/^ev-/);
  });

  it("answers in clear when the reader may and did ask to unmask", () => {
    const answer = JSON.parse(heavyDetailJson(row, [], texts, null)) as { payload: { card_pan: string }; rawEnvelope: string };
    expect(answer.payload.card_pan).toBe(CARD);
    expect(answer.rawEnvelope).toBe(texts.raw_envelope);
  });
});
