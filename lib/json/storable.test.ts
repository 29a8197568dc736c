import { describe, expect, it } from "vitest";
import { escapeUnstorable, unstorableText } from "./storable";

describe("escapeUnstorable", () => {
  it("writes NUL and unpaired surrogates as their escapes, leaving the rest (pairs too) as it is", () => {
    expect(escapeUnstorable("a\u0000b")).toBe("a\\u0000b");
    expect(escapeUnstorable("x\ud800y\udfffz")).toBe("x\\ud800y\\udfffz");
    expect(escapeUnstorable("\ud83d\ude00 \ud83d")).toBe("\ud83d\ude00 \\ud83d");
    expect(escapeUnstorable("\ude00\ud83d\ude00")).toBe("\\ude00\ud83d\ude00");
    expect(escapeUnstorable("plain é")).toBe("plain é");
    for (const text of ["a\u0000b", "\ud800\ud800", "\udc00\u0000"]) expect(unstorableText(escapeUnstorable(text))).toBeNull();
  });
});
