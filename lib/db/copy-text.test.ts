import { describe, expect, it } from "vitest";
import { copyField, copyJson, copyNumber } from "./copy-text";

describe("COPY text fields", () => {
  it("writes NULL as \\N and escapes backslash, newline, return and tab", () => {
    expect(copyField(null)).toBe("\\N");
    expect(copyField("plain é 😀")).toBe("plain é 😀");
    expect(copyField("a\\b\nc\rd\te")).toBe("a\\\\b\\nc\\rd\\te");
    // the literal text \N is data, not NULL, once its backslash is escaped
    expect(copyField("\\N")).toBe("\\\\N");
  });

  it("doubles the backslashes of JSON text and nothing else", () => {
    expect(copyJson(null)).toBe("\\N");
    expect(copyJson({ a: 'say "hi"\n\ttab', b: [1, 2.5] })).toBe('{"a":"say \\\\"hi\\\\"\\\\n\\\\ttab","b":[1,2.5]}');
    expect(copyJson({ a: "é" })).toBe('{"a":"é"}');
  });

  it("writes numbers in their shortest exact form", () => {
    expect(copyNumber(null)).toBe("\\N");
    expect(copyNumber(-0.1 + 0.3)).toBe("0.19999999999999998");
    expect(copyNumber(182)).toBe("182");
  });
});
