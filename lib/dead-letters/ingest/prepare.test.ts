import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../audit/canonical-json";
import type { NewDeadLetter } from "../types";
import { batchAuditAfter, prepareRecord } from "./prepare";

const base: NewDeadLetter = {
  kind: "afc", source: "gates.metro", idempotencyKey: "ab".repeat(32), entityKey: "gate-1", eventId: "e-1", deviceId: "gate-1",
  sourceMessageId: null, observedAt: new Date("2026-11-02T18:10:11.901Z"), firstSeenAt: new Date("2026-11-02T18:15:42.901Z"),
  rawEnvelope: '{"kind":"afc","raw_payload":{"event_id":"e-1","fare_amount_cents":"250"}}', payload: { event_id: "e-1", fare_amount_cents: "250" },
  failureReason: "fare_amount_cents: Expected integer, received string", failureClass: "transient_schema", classReason: null,
  replayCount: 1, spatial: null,
};

const spatial: NewDeadLetter = {
  ...base, kind: "spatial", source: "flood-zones", idempotencyKey: "sp-1 \"quoted\" é 😀", entityKey: "parcel-11", eventId: null, deviceId: null,
  sourceMessageId: "msg-1", payload: { type: "Feature", geometry: null, properties: {} }, failureReason: "Self-intersection at or near point (1, 1)",
  failureClass: "transient", classReason: "repairable",
  spatial: {
    analysis: { valid_before: false, reason: "Self-intersection", location: [1, 1], outcome: "repaired" } as unknown as NonNullable<NewDeadLetter["spatial"]>["analysis"],
    repairedGeometry: { type: "MultiPolygon", coordinates: [] }, bbox: [178, -17, -178, -16],
  },
};

describe("prepareRecord", () => {
  it("serializes the row's columns once, without the id the store adds", () => {
    const row = JSON.parse(prepareRecord(spatial).row);
    expect(row).not.toHaveProperty("id");
    expect(row).toMatchObject({
      kind: "spatial", key: spatial.idempotencyKey, msg_id: "msg-1", status: "pending", rgroup: "Self-intersection at or near point (…)",
      observed_at: "2026-11-02T18:10:11.901Z", raw: spatial.rawEnvelope, repaired: { type: "MultiPolygon", coordinates: [] },
      x1: 178, x2: 182, // across the antimeridian: stored unwrapped
    });
    expect(JSON.parse(prepareRecord({ ...base, failureClass: "poison" }).row)).toMatchObject({ status: "quarantined", analysis: null, x1: null });
  });
});

describe("batchAuditAfter", () => {
  it("is the canonical JSON of the batch's records, each with its id, in the order given", () => {
    const text = batchAuditAfter([{ id: "10", record: prepareRecord(spatial) }, { id: "9", record: prepareRecord(base) }]);
    const value = JSON.parse(text) as { count: number; records: Record<string, unknown>[] };
    expect(canonicalJson(value)).toBe(text); // what the chain hashes is what jsonb gives back
    expect(value.count).toBe(2);
    expect(value.records.map((r) => r.id)).toEqual(["10", "9"]);
    expect(value.records[0]).toEqual({
      id: "10", kind: "spatial", source: "flood-zones", idempotencyKey: spatial.idempotencyKey, failureReason: spatial.failureReason,
      failureClass: "transient", classReason: "repairable", observedAt: "2026-11-02T18:10:11.901Z", analysis: spatial.spatial?.analysis,
    });
    expect(value.records[1]).not.toHaveProperty("analysis");
  });
});
