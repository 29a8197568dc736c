import { describe, expect, it } from "vitest";
import { hashTapLine, validateTapLine } from "./tap-lines";

const GOOD = '{"event_id":"evt-1","device_id":"dev-1","fare_amount_cents":275,"tap_timestamp":"2024-05-01T08:30:00Z"}';
// from tests/fixtures/afc/hash-vectors.json ("ordinary tap"), i.e. computed by CPython
const GOOD_HASH = "1981f9d6d75354fa868a908a9c96677678e8feb018f36923d5c0f5a495d314b5";
const NAN_FARE_HASH = "2c40149c58401a06955ea46bd0a33535c4c3377c2f21aba06d2141a9c96f4280";

describe("hashTapLine", () => {
  it("hashes a tap line", () => {
    expect(hashTapLine(GOOD)).toEqual({ ok: true, hash: GOOD_HASH });
  });
  it("hashes invalid taps too: the hash is identity, not validity", () => {
    expect(hashTapLine('{"event_id":"e"}').ok).toBe(true);
  });
  it("reads NaN / Infinity / -Infinity as json.loads does (Python writes a nan/inf float that way)", () => {
    // computed by CPython: tests/fixtures/afc/hash-vectors.json ("python constant NaN fare")
    const tap = '{"event_id":"evt-1","device_id":"dev-1","fare_amount_cents":NaN,"tap_timestamp":"2024-05-01T08:30:00Z"}';
    expect(hashTapLine(tap)).toEqual({ ok: true, hash: NAN_FARE_HASH });
  });
  it.each([["[1NaN]"], ["[NaN1]"], ["[-NaN]"], ["[nan]"], ["[infinity]"]])("still rejects %j like json.loads", (line) => {
    expect(hashTapLine(`{"fare_amount_cents":${line}}`).ok).toBe(false);
  });
  it.each([
    ["{oops", /expected/i],
    ["", /empty line/],
    ["[1]", /not a JSON object/],
  ])("errors on %j", (line, error) => {
    const result = hashTapLine(line);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(error);
  });
});

describe("validateTapLine", () => {
  it("reports a valid tap", () => {
    expect(validateTapLine(GOOD, 1)).toEqual({
      ok: true,
      output: { line: 1, valid: true, reason: null, failure_class: null, event_hash: GOOD_HASH },
    });
  });
  it("reports reason and class of an invalid tap", () => {
    expect(validateTapLine('{"device_id":"d","fare_amount_cents":1.5}', 7)).toMatchObject({
      ok: true,
      output: {
        line: 7,
        valid: false,
        reason: "event_id: Required; fare_amount_cents: Expected integer, received float; tap_timestamp: Required",
        failure_class: "poison",
      },
    });
  });
  it("treats a non-object as an invalid, unhashable tap", () => {
    expect(validateTapLine("42", 2)).toEqual({
      ok: true,
      output: { line: 2, valid: false, reason: "(root): Expected object, received number", failure_class: "poison", event_hash: null },
    });
  });
  it("reports a NaN fare as a wrong-typed fare, with the producers' hash", () => {
    const tap = '{"event_id":"evt-1","device_id":"dev-1","fare_amount_cents":NaN,"tap_timestamp":"2024-05-01T08:30:00Z"}';
    expect(validateTapLine(tap, 4)).toEqual({
      ok: true,
      output: {
        line: 4,
        valid: false,
        reason: "fare_amount_cents: Expected integer, received float",
        failure_class: "transient_schema",
        event_hash: NAN_FARE_HASH,
      },
    });
  });
  it("returns an error line for text that is not JSON", () => {
    expect(validateTapLine("nope", 3)).toMatchObject({ ok: false, output: { line: 3 } });
  });
});
