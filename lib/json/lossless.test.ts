import { LosslessNumber } from "lossless-json";
import { describe, expect, it } from "vitest";
import { isJsonObject, jsonTypeName, parseLossless, toPlainJson } from "./lossless";

describe("parseLossless", () => {
  it("keeps number lexemes", () => {
    const v = parseLossless('{"a":275.0,"b":1E400}');
    expect(v).toEqual({ a: new LosslessNumber("275.0"), b: new LosslessNumber("1E400") });
  });

  it("keeps the last of duplicate keys, like Python's json.loads", () => {
    expect(toPlainJson(parseLossless('{"a":1,"b":2,"a":3}'))).toEqual({ a: 3, b: 2 });
    expect(toPlainJson(parseLossless('{"a":{"x":1},"a":[1]}'))).toEqual({ a: [1] });
  });

  it("rejects invalid JSON and the Python-only NaN literal", () => {
    expect(() => parseLossless("{")).toThrow(SyntaxError);
    expect(() => parseLossless('{"a":NaN}')).toThrow(SyntaxError);
  });

  it("keeps __proto__ as data", () => {
    const v = parseLossless('{"__proto__":{"polluted":true}}');
    expect(Object.keys(v as object)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});

describe("toPlainJson", () => {
  it.each([
    ["275", 275],
    ["275.0", 275],
    ["-0", -0],
    ["0.1", 0.1],
    ["1e2", 100],
    ["9007199254740991", 9007199254740991],
  ])("safe lexeme %s → number", (lexeme, expected) => {
    expect(toPlainJson(new LosslessNumber(lexeme))).toBe(expected);
  });

  it.each(["9007199254740993", "12345678901234567890123", "123456789.123456789123", "1E400", "1e-400"])(
    "unsafe lexeme %s stays exact as a string",
    (lexeme) => {
      expect(toPlainJson(new LosslessNumber(lexeme))).toBe(lexeme);
    },
  );

  it("converts nested structures and leaves plain values alone", () => {
    expect(toPlainJson(parseLossless('{"a":[1,{"b":2.50}],"c":null,"d":"x","e":true}'))).toEqual({
      a: [1, { b: 2.5 }],
      c: null,
      d: "x",
      e: true,
    });
    expect(toPlainJson(Number.POSITIVE_INFINITY)).toBeNull();
    expect(toPlainJson(10n)).toBe(10);
    expect(toPlainJson(2n ** 64n)).toBe("18446744073709551616");
  });

  it("keeps a __proto__ key as an own data property", () => {
    const out = toPlainJson(parseLossless('{"__proto__":{"x":1}}'));
    expect(Object.keys(out as object)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1}}');
  });

  it("refuses non-JSON values", () => {
    expect(() => toPlainJson(undefined)).toThrow(TypeError);
  });
});

describe("helpers", () => {
  it("isJsonObject excludes arrays, null and lossless numbers", () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject([])).toBe(false);
    expect(isJsonObject(null)).toBe(false);
    expect(isJsonObject(new LosslessNumber("1"))).toBe(false);
  });

  it("jsonTypeName names lossless numbers 'number'", () => {
    expect(jsonTypeName(new LosslessNumber("1"))).toBe("number");
    expect(jsonTypeName([])).toBe("array");
    expect(jsonTypeName(null)).toBe("null");
    expect(jsonTypeName(undefined)).toBe("undefined");
  });
});
