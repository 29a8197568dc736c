import { readFileSync } from "node:fs";
import { LosslessNumber } from "lossless-json";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { canonicalIdentity, eventHash, sha256Hex } from "./hash";
import { parseLossless, parsePythonJson } from "../json/lossless";
import { compareCodePoints, pythonFloatRepr, pythonJsonDumps, pythonNumberFromLexeme, pythonQuote } from "../json/python";

// Written by scripts/afc-hash-vectors.py from CPython's json + hashlib: the expectations are the producers'.
const fixtureSchema = z.object({
  vectors: z.array(z.object({ name: z.string(), input: z.string(), canonical: z.string(), sha256: z.string() })).min(60),
  float_lexemes: z.array(z.object({ lexeme: z.string(), python: z.string() })).min(100),
});
const fixture = fixtureSchema.parse(
  JSON.parse(readFileSync(new URL("../../tests/fixtures/afc/hash-vectors.json", import.meta.url), "utf8")),
);

describe("event hash vs CPython vectors", () => {
  it.each(fixture.vectors.map((v) => [v.name, v] as const))("%s", (_name, v) => {
    // parsePythonJson is json.loads (the CLI reads raw producer text with it); parseLossless is the strict-JSON
    // reader of the HTTP boundaries and must agree on every vector that is standard JSON.
    const tap = parsePythonJson(v.input);
    expect(canonicalIdentity(tap)).toBe(v.canonical);
    expect(eventHash(tap)).toBe(v.sha256);
    if (!v.name.startsWith("python constant")) expect(eventHash(parseLossless(v.input))).toBe(v.sha256);
  });

  it("includes vectors with json.loads' NaN / Infinity constants", () => {
    expect(fixture.vectors.filter((v) => v.name.startsWith("python constant")).length).toBeGreaterThanOrEqual(4);
  });

  it("float lexemes render like json.dumps(json.loads(lexeme))", () => {
    const mismatches = fixture.float_lexemes.filter((f) => pythonNumberFromLexeme(f.lexeme) !== f.python);
    expect(mismatches).toEqual([]);
  });
});

describe("canonicalIdentity", () => {
  it("is null for a payload that is not an object", () => {
    expect(canonicalIdentity([1, 2])).toBeNull();
    expect(canonicalIdentity("{}")).toBeNull();
    expect(canonicalIdentity(null)).toBeNull();
    expect(canonicalIdentity(new LosslessNumber("1"))).toBeNull();
    expect(eventHash(42)).toBeNull();
  });

  it("ignores inherited properties", () => {
    const tap = Object.create({ event_id: "inherited" }) as Record<string, unknown>;
    expect(canonicalIdentity(tap)).toBe('{"device_id":null,"event_id":null,"fare_amount_cents":null,"tap_timestamp":null}');
  });

  it("accepts plain JS values: integral numbers print as ints, others via float repr", () => {
    const tap = { event_id: "e", device_id: "d", fare_amount_cents: 275, tap_timestamp: "t" };
    expect(canonicalIdentity(tap)).toBe('{"device_id":"d","event_id":"e","fare_amount_cents":275,"tap_timestamp":"t"}');
    expect(pythonJsonDumps(275.5)).toBe("275.5");
    expect(pythonJsonDumps(0.00001)).toBe("1e-05");
    // String(1e21) is "1e+21": the lexeme has an exponent, so Python would have read a float
    expect(pythonJsonDumps(1e21)).toBe("1e+21");
    expect(pythonJsonDumps(-0)).toBe("0");
    expect(pythonJsonDumps(Number.POSITIVE_INFINITY)).toBe("Infinity");
    expect(pythonJsonDumps(Number.NaN)).toBe("NaN");
    expect(pythonJsonDumps(12345678901234567890123n)).toBe("12345678901234567890123");
  });

  it("gives the same hash for plain and lossless values when the lexeme is the JS repr", () => {
    const text = '{"event_id":"e","device_id":"d","fare_amount_cents":275,"tap_timestamp":"t"}';
    expect(eventHash(JSON.parse(text))).toBe(eventHash(parseLossless(text)));
  });

  it("rejects values JSON cannot hold", () => {
    expect(() => pythonJsonDumps(undefined)).toThrow(TypeError);
    expect(() => pythonJsonDumps({ a: () => 1 })).toThrow(TypeError);
  });
});

describe("pythonFloatRepr", () => {
  it.each([
    [275, "275.0"],
    [100, "100.0"],
    [1e-5, "1e-05"],
    [1e-4, "0.0001"],
    [1e16, "1e+16"],
    [1e15, "1000000000000000.0"],
    [1.5e300, "1.5e+300"],
    [-0, "-0.0"],
    [0, "0.0"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [0.1, "0.1"],
    [-2.5e-7, "-2.5e-07"],
    [123456789.12345679, "123456789.12345679"],
    [Number.POSITIVE_INFINITY, "Infinity"],
    [Number.NEGATIVE_INFINITY, "-Infinity"],
  ])("%s → %s", (x, expected) => {
    expect(pythonFloatRepr(x)).toBe(expected);
  });
});

describe("pythonNumberFromLexeme", () => {
  it("keeps ints exact at any size and folds -0", () => {
    expect(pythonNumberFromLexeme("12345678901234567890123")).toBe("12345678901234567890123");
    expect(pythonNumberFromLexeme("-0")).toBe("0");
  });
  it("reads lexemes with . or e as floats", () => {
    expect(pythonNumberFromLexeme("1e2")).toBe("100.0");
    expect(pythonNumberFromLexeme("1E400")).toBe("Infinity");
    expect(pythonNumberFromLexeme("-1e-400")).toBe("-0.0");
  });
});

describe("pythonQuote (ensure_ascii)", () => {
  it.each([
    ["plain", '"plain"'],
    ['q"b\\', '"q\\"b\\\\"'],
    ["\n\r\t\b\f", '"\\n\\r\\t\\b\\f"'],
    ["\u0000\u001f\u007f", '"\\u0000\\u001f\\u007f"'],
    ["a/b", '"a/b"'],
    ["café", '"caf\\u00e9"'],
    ["🚇", '"\\ud83d\\ude87"'],
    ["\ud800", '"\\ud800"'],
  ])("%j → %s", (input, expected) => {
    expect(pythonQuote(input)).toBe(expected);
  });
});

describe("compareCodePoints", () => {
  it("sorts astral characters after U+E000..U+FFFF, unlike the default JS sort", () => {
    const keys = ["😀", "\uffff", "\ue000", "a"];
    expect([...keys].sort()).toEqual(["a", "😀", "\ue000", "\uffff"]);
    expect([...keys].sort(compareCodePoints)).toEqual(["a", "\ue000", "\uffff", "😀"]);
  });
  it("orders a lone surrogate by its own code point", () => {
    // Python: "\ud83d" (0xD83D) < "\ue000" < "😀" (0x1F600); a lone high surrogate < its paired form
    expect(["😀", "\ue000", "\ud83d"].sort(compareCodePoints)).toEqual(["\ud83d", "\ue000", "😀"]);
    expect(compareCodePoints("\ud83d", "\ud83d\ude00")).toBeLessThan(0);
    expect(compareCodePoints("x\ud83dy", "x\ud83d\ude00")).toBeLessThan(0);
  });
  it("is a plain string order elsewhere", () => {
    expect(["b", "B", "_", "a", "", "10", "9"].sort(compareCodePoints)).toEqual(["", "10", "9", "B", "_", "a", "b"]);
  });
});

it("sha256Hex is lowercase hex of the UTF-8 bytes", () => {
  expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
});
