import { describe, expect, it } from "vitest";
import { tokenizeJson } from "./json-tokens";

describe("tokenizeJson", () => {
  it("marks keys, strings, numbers and literals and loses nothing", () => {
    const text = '{"a": "x\\"y", "n": -1.5e3, "t": true, "z": null, "l": [1, 2]}';
    const tokens = tokenizeJson(text);
    expect(tokens.map((t) => t.text).join("")).toBe(text);
    expect(tokens.filter((t) => t.kind === "key").map((t) => t.text)).toEqual(['"a"', '"n"', '"t"', '"z"', '"l"']);
    expect(tokens.find((t) => t.kind === "number")?.text).toBe("-1.5e3");
    expect(tokens.filter((t) => t.kind === "literal").map((t) => t.text)).toEqual(["true", "null"]);
  });

  it("passes text that is not JSON through unchanged", () => {
    const text = '{"p": "<img src=x onerror=alert(1)>"} trailing <b>garbage';
    expect(
      tokenizeJson(text)
        .map((t) => t.text)
        .join(""),
    ).toBe(text);
  });
});
