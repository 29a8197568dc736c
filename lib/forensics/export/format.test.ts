import { describe, expect, it } from "vitest";
import { CSV_COLUMNS, csvCell, csvLine, geojsonFeatures, ndjsonLine, type CsvRow, type GeojsonRow, type NdjsonRow } from "./format";

describe("csvCell", () => {
  it("puts an apostrophe before text a spreadsheet would run as a formula", () => {
    for (const text of ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"]) expect(csvCell(text)).toMatch(/^"?'/);
  });

  it("also when white space or invisible characters come first (spreadsheets skip them)", () => {
    const lead = [
      " ",
      "  ",
      "\n",
      "\r\n",
      "\u000b",
      "\f",
      "\u0085",
      "\u00a0",
      "\u1680",
      "\u2003",
      "\u2028",
      "\u3000",
      "\u200b",
      "\u200e",
      "\u2060",
      "\ufeff",
      "\u00ad",
      " \u200b\u00a0",
    ];
    for (const before of lead) {
      for (const start of ["=", "+", "-", "@"]) {
        const cell = csvCell(`${before}${start}1+1`);
        expect(cell, JSON.stringify(before + start)).toMatch(/^"?'/);
      }
    }
    expect(csvCell(" \tx")).toMatch(/^"?'/);
  });

  it("leaves other text, numbers and null alone, quoting per RFC 4180", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell(" plain")).toBe(" plain");
    expect(csvCell("\u200bplain")).toBe("\u200bplain");
    expect(csvCell("a=1")).toBe("a=1");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell(' "=1"')).toBe('" ""=1"""');
    expect(csvCell(" =1,2")).toBe(`"' =1,2"`);
    expect(csvCell(-1)).toBe("-1");
    expect(csvCell(null)).toBe("");
  });
});

describe("ndjsonLine of a record pulled from a broker", () => {
  const row = (over: Partial<NdjsonRow>): NdjsonRow => ({
    kind: "spatial",
    source: "parcels",
    idempotency_key: "k-1",
    failure_class: "transient",
    first_failure_reason: "dead-lettered by rabbitmq: rejected",
    failure_count: 1,
    first_seen_at: "2026-12-01T00:00:00.000000Z",
    raw_envelope: null,
    captured: null,
    pulled: true,
    unreadable: false,
    ...over,
  });
  const parse = (line: string | null) => JSON.parse(line ?? "null") as Record<string, unknown>;

  it("puts kind, source and the broker's reason first, so the body's own fields still win", () => {
    const body =
      '{"idempotency_key":"k-1","observed_at":"2026-12-01T00:00:00Z","feature":{"type":"Feature","geometry":null,"properties":{}}}';
    const line = ndjsonLine(row({ raw_envelope: body }), null);
    expect(line).toBe(`{"kind":"spatial","source":"parcels","dead_letter_reason":"dead-lettered by rabbitmq: rejected",${body.slice(1)}`);
    const own = '{"source":"mapper","dead_letter_reason":"HTTP 503","idempotency_key":"k-1"}';
    expect(parse(ndjsonLine(row({ raw_envelope: own }), null))).toMatchObject({
      kind: "spatial",
      source: "mapper",
      dead_letter_reason: "HTTP 503",
    });
    expect(ndjsonLine(row({ raw_envelope: " {} " }), null)).toBe(
      '{"kind":"spatial","source":"parcels","dead_letter_reason":"dead-lettered by rabbitmq: rejected"} ',
    );
  });

  it("writes each key once: the body's own kind, source and reason, the pull's only where the body has none", () => {
    const own = '{"kind":"spatial","source":"mapper","idempotency_key":"k-1","feature":null}';
    const line = ndjsonLine(row({ raw_envelope: own }), null);
    expect(line).toBe(`{"dead_letter_reason":"dead-lettered by rabbitmq: rejected",${own.slice(1)}`);
    const all = '{"kind":"spatial","source":"mapper","dead_letter_reason":"HTTP 503"}';
    expect(ndjsonLine(row({ raw_envelope: all }), null)).toBe(all);
    // An escaped key is still the same key; a nested "source" is not the object's.
    const escaped = '{"\\u006bind":"spatial","feature":{"properties":{"source":"x"}}}';
    expect(ndjsonLine(row({ raw_envelope: escaped }), null)).toBe(
      `{"source":"parcels","dead_letter_reason":"dead-lettered by rabbitmq: rejected",${escaped.slice(1)}`,
    );
    const afc = '{"kind":"afc","source":"gates","raw_payload":{"event_id":"e"},"failure_reason":"schema"}';
    expect(ndjsonLine(row({ kind: "afc", raw_envelope: afc }), null)).toBe(afc);
  });

  it("wraps a bare tap as a captured one, and completes an AFC dead-letter record", () => {
    const tap = '{"event_id":"e-1","device_id":"d-1","fare_amount_cents":275.0,"tap_timestamp":"2026-11-02T00:00:00Z"}';
    const hash = "a".repeat(64);
    const wrapped = ndjsonLine(row({ kind: "afc", idempotency_key: hash, failure_class: "transient_schema", raw_envelope: tap }), null);
    expect(wrapped).toContain(`"raw_payload":${tap}`); // the lexeme 275.0 as received
    expect(parse(wrapped)).toMatchObject({
      kind: "afc",
      source: "parcels",
      event_hash: hash,
      failure_reason: "dead-lettered by rabbitmq: rejected",
    });
    const record = `{"raw_payload":${tap},"failure_reason":"schema"}`;
    expect(parse(ndjsonLine(row({ kind: "afc", raw_envelope: record }), null))).toMatchObject({
      kind: "afc",
      source: "parcels",
      failure_reason: "schema",
    });
  });

  it("writes no line for a body that could not be read (no envelope to re-import)", () => {
    expect(ndjsonLine(row({ raw_envelope: "this is not json <xml/>", unreadable: true }), null)).toBeNull();
  });
});

describe("what was approved and sent, after a replay", () => {
  const square = '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}';
  const star = '{"type":"Polygon","coordinates":[[[0,0],[2,2],[2,0],[0,2],[0,0]]]}';
  const linework = '{"type":"MultiPolygon","coordinates":[]}';
  const geo = (over: Partial<GeojsonRow>): GeojsonRow => ({
    id: "2010",
    kind: "spatial",
    source: "parcels",
    idempotency_key: "k-2010",
    status: "replayed",
    failure_class: "transient_schema",
    reason: "self-intersection",
    observed_at: "2026-12-01T00:00:00.000000Z",
    outcome: "repaired",
    geometry: star,
    properties: null,
    repaired_geometry: linework,
    received_envelope: null,
    approved_repair: "structure/accept",
    analysis_repair: "linework/accept",
    replay: '{"batch_id":"7","repair":"structure/accept","from":"approval"}',
    replay_geometry: square,
    decided_by: null,
    ...over,
  });
  const parsed = (r: GeojsonRow) =>
    geojsonFeatures(r, null).map((f) => JSON.parse(f) as { geometry: unknown; properties: Record<string, unknown> });

  it("GeoJSON: once replayed, the geometry sent, with the batch and the repair, instead of the analysis's default", () => {
    const features = parsed(geo({}));
    expect(features.map((f) => f.properties.role)).toEqual(["original", "sent"]);
    expect(features[1]!.geometry).toEqual(JSON.parse(square));
    for (const f of features) {
      expect(f.properties.approved_repair).toBe("structure/accept");
      expect(f.properties.decided_by).toBeNull();
      expect(f.properties.replay).toEqual({ batch_id: "7", repair: "structure/accept", from: "approval" });
    }
  });

  it("GeoJSON: before a replay, the analysis's result only when the approval did not pin another repair", () => {
    const approvedOther = parsed(geo({ status: "approved", replay: null, replay_geometry: null }));
    expect(approvedOther.map((f) => f.properties.role)).toEqual(["original"]);
    const approvedSame = parsed(geo({ status: "approved", approved_repair: "linework/accept", replay: null, replay_geometry: null }));
    expect(approvedSame.map((f) => f.properties.role)).toEqual(["original", "repaired"]);
    const pending = parsed(geo({ status: "pending", approved_repair: null, replay: null, replay_geometry: null }));
    expect(pending.map((f) => f.properties.role)).toEqual(["original", "repaired"]);
    expect(pending[1]!.properties.replay).toBeNull();
  });

  it("CSV: the approved repair, the replay's batch and the repair it was sent with, the deciding rule, after the existing columns", () => {
    expect(CSV_COLUMNS.slice(-5)).toEqual(["payload", "approved_repair", "replay_batch_id", "replay_repair", "decided_by"]);
    const row: CsvRow = {
      id: "2010",
      kind: "spatial",
      source: "parcels",
      idempotency_key: "k-2010",
      entity_key: "p-1",
      event_id: null,
      device_id: null,
      source_message_id: null,
      observed_at: "2026-12-01T00:00:00.000000Z",
      first_seen_at: "2026-12-01T00:00:00.000000Z",
      status: "replayed",
      failure_class: "transient_schema",
      class_reason: null,
      first_failure_reason: "x",
      reason: "x",
      reason_group: "x",
      replay_count: 1,
      failure_count: 1,
      outcome: "repaired",
      payload: "{}",
      approved_repair: "structure/accept",
      replay_batch_id: "7",
      replay_repair: "structure/accept",
      decided_by: "rule bowtie-sliver v3 (approved by a@x and b@x)",
    };
    expect(csvLine(row, null).trimEnd().split(",").slice(-4)).toEqual([
      "structure/accept",
      "7",
      "structure/accept",
      "rule bowtie-sliver v3 (approved by a@x and b@x)",
    ]);
  });
});
