import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../json/canonical";
import type { NewDeadLetter } from "../../vocabulary/record";
import { batchAuditAfter, prepareRecord, ROW_COLUMNS } from "./prepare-row";

const base: NewDeadLetter = {
  kind: "afc",
  source: "gates.metro",
  idempotencyKey: "ab".repeat(32),
  entityKey: "gate-1",
  eventId: "e-1",
  deviceId: "gate-1",
  sourceMessageId: null,
  observedAt: new Date("2026-11-02T18:10:11.901Z"),
  firstSeenAt: new Date("2026-11-02T18:15:42.901Z"),
  rawEnvelope: '{"kind":"afc","raw_payload":{"event_id":"e-1","fare_amount_cents":"250"}}',
  payload: { event_id: "e-1", fare_amount_cents: "250" },
  failureReason: "fare_amount_cents: Expected integer, received string",
  failureClass: "transient_schema",
  classReason: null,
  replayCount: 1,
  spatial: null,
};

const spatial: NewDeadLetter = {
  ...base,
  kind: "spatial",
  source: "flood-zones",
  idempotencyKey: 'sp-1 "quoted" é 😀',
  entityKey: "parcel-11",
  eventId: null,
  deviceId: null,
  sourceMessageId: "msg-1",
  payload: { type: "Feature", geometry: null, properties: {} },
  failureReason: "Self-intersection at or near point (1, 1)",
  failureClass: "transient",
  classReason: "repairable",
  spatial: {
    analysis: { valid_before: false, reason: "Self-intersection", location: [1, 1], outcome: "repaired" } as unknown as NonNullable<
      NewDeadLetter["spatial"]
    >["analysis"],
    repairedGeometry: { type: "MultiPolygon", coordinates: [] },
    bbox: [178, -17, -178, -16],
  },
};

/** Reads a COPY text line back into values by column (the format's inverse, for these tests). */
function columns(row: string): Record<string, string | null> {
  const unescape = (f: string) => (f === "\\N" ? null : f.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", r: "\r", t: "\t" })[c] ?? c));
  const fields = row.split("\t");
  expect(fields).toHaveLength(ROW_COLUMNS.length);
  return Object.fromEntries(ROW_COLUMNS.map((c, i) => [c, unescape(fields[i] as string)]));
}

describe("prepareRecord", () => {
  it("serializes the row's columns once as COPY text, without the id and timestamps the store adds", () => {
    const prepared = prepareRecord(spatial);
    expect(prepared.status).toBe("pending");
    const row = columns(prepared.row);
    expect(row).toMatchObject({
      kind: "spatial",
      idempotency_key: spatial.idempotencyKey,
      source_message_id: "msg-1",
      reason_group: "Self-intersection at or near point (…)",
      observed_at: "2026-11-02T18:10:11.901Z",
      raw_envelope: spatial.rawEnvelope,
      event_id: null,
      replay_count: "1",
      bbox: "(178,-17),(182,-16)", // across the antimeridian: stored unwrapped
    });
    expect(JSON.parse(row.repaired_geometry as string)).toEqual({ type: "MultiPolygon", coordinates: [] });
    expect(JSON.parse(row.payload as string)).toEqual(spatial.payload);
    expect(prepareRecord({ ...base, failureClass: "poison" }).status).toBe("quarantined");
    expect(columns(prepareRecord({ ...base, failureClass: "poison" }).row)).toMatchObject({
      analysis: null,
      bbox: null,
    });
  });

  it("escapes what COPY text reserves in every value", () => {
    const tricky = { ...base, failureReason: "line 1\nline 2\ttab \\ back", rawEnvelope: '{"a":"x\\ny"}', payload: { a: "x\ny\\" } };
    const row = columns(prepareRecord(tricky).row);
    expect(row.first_failure_reason).toBe(tricky.failureReason);
    expect(row.raw_envelope).toBe(tricky.rawEnvelope);
    expect(JSON.parse(row.payload as string)).toEqual(tricky.payload);
  });
});

describe("batchAuditAfter", () => {
  it("is the canonical JSON of the batch's records, each with its id, in the order given", () => {
    const text = batchAuditAfter([
      { id: "10", record: prepareRecord(spatial) },
      { id: "9", record: prepareRecord(base) },
    ]);
    const value = JSON.parse(text) as { count: number; records: Record<string, unknown>[] };
    expect(canonicalJson(value)).toBe(text); // what the chain hashes is what jsonb gives back
    expect(value.count).toBe(2);
    expect(value.records.map((r) => r.id)).toEqual(["10", "9"]);
    expect(value.records[0]).toEqual({
      id: "10",
      kind: "spatial",
      source: "flood-zones",
      idempotencyKey: spatial.idempotencyKey,
      failureReason: spatial.failureReason,
      failureClass: "transient",
      classReason: "repairable",
      observedAt: "2026-11-02T18:10:11.901Z",
      analysis: spatial.spatial?.analysis,
    });
    expect(value.records[1]).not.toHaveProperty("analysis");
  });
});
