import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import { CanonicalJson, canonicalJson } from "./canonical";

// The reference is the `canonicalize` package (RFC 8785), which wrote every audit event stored before this module:
// the chain of those events must verify with the new writer, so the output has to be identical.
const cases: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  1,
  -1.5,
  1e21,
  1e-7,
  0.1,
  123456789012345680000,
  5e-324,
  Number.MAX_VALUE,
  "",
  "plain",
  'quote " backslash \\ slash /',
  "\u0000\u001f\u007f\u2028\u2029",
  "é ü 😀 \ud83d\ude00",
  "<script>",
  [],
  [1, [2, [3, {}]]],
  [undefined, null],
  {},
  { b: 1, a: 2 },
  { é: 1, e: 2, "\ud83d\ude00": 3, "\uffff": 4, A: 5, "": 6 },
  { z: { y: null, x: [true, { d: 1, c: 2 }] } },
  { skipped: undefined, kept: 1 },
  { at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)) },
  { analysis: { valid: false, reason: "Self-intersection", location: [1.5, -0.25], area_before: 0.000123, parts: [{ n: 1 }] } },
];

describe("canonicalJson", () => {
  it.each(cases.map((c) => [JSON.stringify(c) ?? String(c), c]))("writes %s as the canonicalize package does", (_, value) => {
    expect(canonicalJson(value)).toBe(canonicalize(value));
  });

  it("refuses what RFC 8785 cannot represent, as the package does", () => {
    for (const bad of [NaN, Infinity, -Infinity, "\ud800", { "\udc00": 1 }, ["a\ud83d"]]) {
      expect(() => canonicalJson(bad)).toThrow();
      expect(() => canonicalize(bad)).toThrow();
    }
  });

  it("splices text that is already canonical, and such text parses back to the same value", () => {
    const inner = canonicalJson({ b: [1, "x"], a: null });
    expect(canonicalJson({ z: 1, after: new CanonicalJson(inner) })).toBe(canonicalize({ z: 1, after: { b: [1, "x"], a: null } }));
    expect(JSON.parse(JSON.stringify({ after: new CanonicalJson(inner) }))).toEqual({ after: { a: null, b: [1, "x"] } });
  });
});
