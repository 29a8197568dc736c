import { describe, expect, it } from "vitest";
import type { NewDeadLetter } from "../../vocabulary/record";
import { suspectText, UNSTORABLE_ESCAPE, unstorable } from "../../json/storable";
import { outOfRange, unstorableRecord } from "./storable-record";

const record: NewDeadLetter = {
  kind: "afc",
  source: "gates",
  idempotencyKey: "ab".repeat(32),
  entityKey: "d-1",
  eventId: "e-1",
  deviceId: "d-1",
  sourceMessageId: null,
  observedAt: new Date("2026-11-01T08:00:00Z"),
  firstSeenAt: new Date("2026-11-01T08:05:00Z"),
  rawEnvelope: "{}",
  payload: { event_id: "e-1", nested: ["ok", { deeper: "fine" }] },
  failureReason: "r",
  failureClass: "transient_schema",
  classReason: null,
  replayCount: 0,
  spatial: null,
};

describe("unstorable", () => {
  it("finds NUL and unpaired surrogates in strings and keys, with their path", () => {
    expect(unstorable({ a: ["x", { b: "y\0" }] }, "")).toMatchObject({ path: "a[1].b", message: expect.stringContaining("NUL") });
    expect(unstorable({ "k\ud800": 1 }, "p")).toMatchObject({ path: "p.k\ud800", message: expect.stringContaining("surrogate") });
    expect(unstorable({ emoji: "\ud83d\ude00", text: "\\u0000 as text" }, "")).toBeNull();
  });

  it("suspects a line only when it holds such an escape", () => {
    expect(UNSTORABLE_ESCAPE.test('{"a":"\\u0000"}')).toBe(true);
    expect(UNSTORABLE_ESCAPE.test('{"a":"\\uD83D\\uDE00"}')).toBe(true); // searched, then passes
    expect(UNSTORABLE_ESCAPE.test('{"a":"\\u00e9"}')).toBe(false);
    // What entry points ask of every text: the same answer, with a substring search first.
    expect(suspectText('{"a":"\\u0000"}')).toBe(true);
    expect(suspectText('{"a":"\\u00e9"}')).toBe(false);
    expect(suspectText('{"a":"plain"}')).toBe(false);
  });

  it("checks a normalized record's fields, naming the payload's own path first", () => {
    expect(unstorableRecord(record)).toBeNull();
    expect(unstorableRecord({ ...record, eventId: "e\0", payload: { event_id: "e\0" } })).toMatchObject({ path: "raw_payload.event_id" });
    expect(unstorableRecord({ ...record, source: "g\ud800" })).toMatchObject({ path: "source" });
  });

  it("refuses counts and times PostgreSQL's columns cannot hold", () => {
    expect(outOfRange(record)).toBeNull();
    expect(outOfRange({ ...record, replayCount: 2 ** 31 })).toMatchObject({ path: "retry_count" });
    expect(outOfRange({ ...record, kind: "spatial", observedAt: new Date("0000-06-01T00:00:00Z") })).toMatchObject({ path: "observed_at" });
    expect(outOfRange({ ...record, firstSeenAt: new Date(8.64e15) })).toMatchObject({ path: "first_seen_utc" });
    expect(outOfRange({ ...record, observedAt: new Date("9999-12-31T23:59:59Z") })).toBeNull();
  });

  it("names a key too long to index by the field it was sent in, the entity key by the feature's id or property", () => {
    const long = "k".repeat(1001);
    expect(outOfRange({ ...record, entityKey: long, deviceId: long })).toMatchObject({ path: "device_id" });
    const spatial = { ...record, kind: "spatial" as const, eventId: null, deviceId: null, entityKey: long };
    expect(outOfRange({ ...spatial, payload: { type: "Feature", id: long, properties: {} } })).toMatchObject({ path: "feature.id" });
    expect(outOfRange({ ...spatial, payload: { type: "Feature", properties: { parcel_no: long } } })).toMatchObject({
      path: "feature.properties.parcel_no",
    });
  });
});
