import { describe, expect, it } from "vitest";
import { parseLossless } from "../json/lossless";
import { validateTap } from "./tap-schema";

const GOOD = '{"event_id":"evt-1","device_id":"dev-1","fare_amount_cents":275,"tap_timestamp":"2024-05-01T08:30:00Z"}';

/** Build a tap text from the good one, overriding raw JSON lexemes (undefined removes the key). */
function tapText(overrides: Record<string, string | undefined>, extra = ""): string {
  const fields: Record<string, string | undefined> = {
    event_id: '"evt-1"',
    device_id: '"dev-1"',
    fare_amount_cents: "275",
    tap_timestamp: '"2024-05-01T08:30:00Z"',
    ...overrides,
  };
  const parts = Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `"${k}":${v}`);
  return `{${[...parts, ...(extra ? [extra] : [])].join(",")}}`;
}

function reasonOf(text: string): string | null {
  const result = validateTap(parseLossless(text));
  return result.ok ? null : result.reason;
}

describe("validateTap: valid taps", () => {
  it.each([
    ["ordinary", GOOD],
    ["offset timestamp", tapText({ tap_timestamp: '"2024-05-01T10:30:00+02:00"' })],
    ["fractional seconds", tapText({ tap_timestamp: '"2024-05-01T08:30:00.123456789-05:00"' })],
    ["zero fare", tapText({ fare_amount_cents: "0" })],
    ["integral float fare 275.0", tapText({ fare_amount_cents: "275.0" })],
    ["exponent fare 1e2", tapText({ fare_amount_cents: "1e2" })],
    ["huge integer fare (pydantic int has no bound)", tapText({ fare_amount_cents: "12345678901234567890123" })],
    ["integer fare beyond the double range (still a Python int)", tapText({ fare_amount_cents: `1${"0".repeat(310)}` })],
    ["leap day", tapText({ tap_timestamp: '"2024-02-29T00:00:00Z"' })],
    // RFC 3339 §5.6: "T" and "Z" may be lower case (its ABNF strings are case-insensitive)
    ["lower-case t and z", tapText({ tap_timestamp: '"2024-05-01t08:30:00z"' })],
    ["lower-case t with offset", tapText({ tap_timestamp: '"2024-05-01t08:30:00.5-05:00"' })],
  ])("%s", (_name, text) => {
    expect(reasonOf(text)).toBeNull();
  });

  it("returns the typed tap", () => {
    const result = validateTap(parseLossless(GOOD));
    expect(result).toEqual({
      ok: true,
      tap: { event_id: "evt-1", device_id: "dev-1", fare_amount_cents: 275, tap_timestamp: "2024-05-01T08:30:00Z" },
    });
  });
});

describe("validateTap: reasons (exact producer wording)", () => {
  it.each([
    ["fare as string", tapText({ fare_amount_cents: '"275"' }), "fare_amount_cents: Expected integer, received string"],
    [
      "the example from the spec",
      tapText({ fare_amount_cents: '"275"' }, '"battery_pct":87'),
      "fare_amount_cents: Expected integer, received string; battery_pct: Unrecognized key",
    ],
    ["fare boolean", tapText({ fare_amount_cents: "true" }), "fare_amount_cents: Expected integer, received boolean"],
    ["fare null", tapText({ fare_amount_cents: "null" }), "fare_amount_cents: Expected integer, received null"],
    ["fare array", tapText({ fare_amount_cents: "[275]" }), "fare_amount_cents: Expected integer, received array"],
    ["fare object", tapText({ fare_amount_cents: '{"v":275}' }), "fare_amount_cents: Expected integer, received object"],
    ["fare float", tapText({ fare_amount_cents: "2.75" }), "fare_amount_cents: Expected integer, received float"],
    ["fare overflow 1E400", tapText({ fare_amount_cents: "1E400" }), "fare_amount_cents: Expected integer, received float"],
    // An integer lexeme beyond the double range is still an int to Python: not a float, and below 0 when negative.
    [
      "negative integer fare beyond doubles",
      tapText({ fare_amount_cents: `-1${"0".repeat(310)}` }),
      "fare_amount_cents: Number must be greater than or equal to 0",
    ],
    ["negative fare", tapText({ fare_amount_cents: "-5" }), "fare_amount_cents: Number must be greater than or equal to 0"],
    // one reason per field: the first failing rule (integer before bound)
    ["negative float fare", tapText({ fare_amount_cents: "-1.5" }), "fare_amount_cents: Expected integer, received float"],
    ["missing fare", tapText({ fare_amount_cents: undefined }), "fare_amount_cents: Required"],
    ["missing event_id", tapText({ event_id: undefined }), "event_id: Required"],
    ["event_id number", tapText({ event_id: "42" }), "event_id: Expected string, received number"],
    ["event_id null", tapText({ event_id: "null" }), "event_id: Expected string, received null"],
    ["empty event_id", tapText({ event_id: '""' }), "event_id: String must contain at least 1 character(s)"],
    ["empty device_id", tapText({ device_id: '""' }), "device_id: String must contain at least 1 character(s)"],
    ["whitespace device_id", tapText({ device_id: '"  "' }), "device_id: String must contain at least 1 non-whitespace character(s)"],
    ["bad timestamp", tapText({ tap_timestamp: '"yesterday"' }), "tap_timestamp: Invalid datetime"],
    ["timestamp without offset", tapText({ tap_timestamp: '"2024-05-01T08:30:00"' }), "tap_timestamp: Invalid datetime"],
    ["date only", tapText({ tap_timestamp: '"2024-05-01"' }), "tap_timestamp: Invalid datetime"],
    [
      "space instead of T (not RFC 3339's grammar)",
      tapText({ tap_timestamp: '"2024-05-01 08:30:00Z"' }),
      "tap_timestamp: Invalid datetime",
    ],
    ["lower-case t without offset", tapText({ tap_timestamp: '"2024-05-01t08:30:00"' }), "tap_timestamp: Invalid datetime"],
    ["impossible date", tapText({ tap_timestamp: '"2023-02-29T00:00:00Z"' }), "tap_timestamp: Invalid datetime"],
    ["timestamp as number", tapText({ tap_timestamp: "1714552200" }), "tap_timestamp: Expected string, received number"],
    ["extra key", tapText({}, '"battery_pct":87'), "battery_pct: Unrecognized key"],
    [
      "several extra keys, input order, one entry each",
      tapText({}, '"zeta":1,"alpha":2,"battery_pct":3'),
      "zeta: Unrecognized key; alpha: Unrecognized key; battery_pct: Unrecognized key",
    ],
    ["everything missing", "{}", "event_id: Required; device_id: Required; fare_amount_cents: Required; tap_timestamp: Required"],
  ])("%s", (_name, text, reason) => {
    expect(reasonOf(text)).toBe(reason);
  });

  it("orders by schema field order whatever the input order, extra keys last", () => {
    const text = '{"battery_pct":1,"tap_timestamp":"nope","fare_amount_cents":-1,"device_id":5,"event_id":"","fw":"2"}';
    expect(reasonOf(text)).toBe(
      "event_id: String must contain at least 1 character(s); device_id: Expected string, received number; " +
        "fare_amount_cents: Number must be greater than or equal to 0; tap_timestamp: Invalid datetime; " +
        "battery_pct: Unrecognized key; fw: Unrecognized key",
    );
  });

  it.each([
    ["[1,2]", "(root): Expected object, received array"],
    ['"a tap"', "(root): Expected object, received string"],
    ["42", "(root): Expected object, received number"],
    ["null", "(root): Expected object, received null"],
    ["true", "(root): Expected object, received boolean"],
  ])("not an object: %s", (text, reason) => {
    expect(reasonOf(text)).toBe(reason);
  });

  it("returns field errors alongside the reason", () => {
    const result = validateTap(parseLossless(tapText({ event_id: undefined }, '"x":1')));
    expect(result).toEqual({
      ok: false,
      errors: [
        { path: "event_id", message: "Required" },
        { path: "x", message: "Unrecognized key" },
      ],
      reason: "event_id: Required; x: Unrecognized key",
    });
  });

  it("treats a __proto__ key as an ordinary extra key", () => {
    expect(reasonOf(tapText({}, '"__proto__":{"a":1}'))).toBe("__proto__: Unrecognized key");
  });

  it("works on plain JSON.parse values too", () => {
    expect(validateTap(JSON.parse(tapText({ fare_amount_cents: "2.5" })))).toMatchObject({
      ok: false,
      reason: "fare_amount_cents: Expected integer, received float",
    });
  });
});
