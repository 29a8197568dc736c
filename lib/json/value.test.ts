import { describe, expect, it } from "vitest";
import { isJsonValue } from "./value";

describe("isJsonValue", () => {
  it("takes any value JSON.parse can give", () => {
    for (const text of ["null", '"x"', "1.5", "true", "[]", "{}", '{"a":[1,{"b":null}],"c":"d"}', '[[[[[["deep"]]]]]]'])
      expect(isJsonValue(JSON.parse(text))).toBe(true);
  });

  it("refuses what JSON cannot hold, however deep", () => {
    expect(isJsonValue(undefined)).toBe(false);
    expect(isJsonValue(Number.NaN)).toBe(false);
    expect(isJsonValue({ a: [1, Infinity] })).toBe(false);
    expect(isJsonValue({ a: [{ b: undefined }] })).toBe(false);
    expect(isJsonValue([() => 1])).toBe(false);
    expect(isJsonValue({ when: new Date(0) })).toBe(false);
    expect(isJsonValue([1n])).toBe(false);
  });

  it("walks a 140,000-vertex ring without recursion", () => {
    const ring = Array.from({ length: 140_001 }, (_, i) => [i % 7, i % 11]);
    expect(isJsonValue({ type: "Polygon", coordinates: [ring] })).toBe(true);
  });
});
