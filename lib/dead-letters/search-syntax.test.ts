import { describe, expect, it } from "vitest";
import { conditionJsonPath, parsePayloadSearch, searchWords } from "./search-syntax";

const ok = (q: string) => {
  const r = parsePayloadSearch(q);
  if (!r.ok) throw new Error(r.message);
  return r.search;
};
const bad = (q: string) => {
  const r = parsePayloadSearch(q);
  if (r.ok) throw new Error(`parsed: ${JSON.stringify(r.search)}`);
  return r.message;
};

describe("parsePayloadSearch", () => {
  it("reads identifiers and free text as words", () => {
    expect(ok("sp-2030ba99")).toEqual({ kind: "words", text: "sp-2030ba99" });
    expect(ok("fence line disputed")).toEqual({ kind: "words", text: "fence line disputed" });
    // a base64 message id ends in "=": no value after it, so an identifier, not a broken condition
    expect(ok("AbC123==")).toEqual({ kind: "words", text: "AbC123==" });
  });

  it("reads path = value with a quoted string, a number or a bare word", () => {
    expect(ok('properties.sensor = "SN-9"')).toEqual({ kind: "condition", path: ["properties", "sensor"], anywhere: false, value: "SN-9" });
    expect(ok("fare_amount_cents=275")).toEqual({ kind: "condition", path: ["fare_amount_cents"], anywhere: false, value: 275 });
    expect(ok("properties.land_use == park")).toEqual({
      kind: "condition",
      path: ["properties", "land_use"],
      anywhere: false,
      value: "park",
    });
    expect(ok('note = "say \\"hi\\""')).toMatchObject({ value: 'say "hi"' });
  });

  it("reads key:value as the key at any depth", () => {
    expect(ok("sensor:SN-9")).toEqual({ kind: "condition", path: ["sensor"], anywhere: true, value: "SN-9" });
  });

  it("refuses broken syntax with a message that does not echo the value", () => {
    expect(bad('properties.sensor = "SN-9')).toMatch(/quoted value/);
    expect(bad('properties..sensor = "x"')).toMatch(/path is keys joined by dots/);
    expect(bad('"unclosed phrase')).toMatch(/close the quote/);
  });

  it("refuses a key with an operator and no value, and keeps base64 ids", () => {
    expect(bad("properties.sensor =")).toMatch(/needs a value after =/);
    expect(bad("properties.sensor ==")).toMatch(/needs a value after =/);
    expect(bad("sensor =")).toMatch(/needs a value after =/);
    expect(bad("properties.sensor=")).toMatch(/needs a value after =/);
    expect(bad("name:")).toMatch(/needs a value after the colon/);
    expect(ok("AbC123=")).toEqual({ kind: "words", text: "AbC123=" });
    expect(ok("urn:uuid:1")).toMatchObject({ kind: "condition" });
  });

  it("refuses conditions on keys masked as card data", () => {
    expect(bad('card_pan = "4111111111111111"')).toMatch(/"card_pan" holds masked card data/);
    expect(bad("account_ref:ACC-1")).toMatch(/"account_ref"/);
    expect(bad("payment.PAN = 1")).toMatch(/"PAN"/);
    expect(bad("payment.pan = 1")).not.toContain("4111");
  });
});

describe("conditionJsonPath", () => {
  it("quotes keys and passes the value as a variable", () => {
    expect(conditionJsonPath({ kind: "condition", path: ["properties", "sensor"], anywhere: false, value: 'x") || true || ("' })).toEqual({
      path: '$."properties"."sensor" ? (@ == $s)',
      vars: { s: 'x") || true || ("' },
    });
    expect(conditionJsonPath({ kind: "condition", path: ["fare"], anywhere: true, value: 275 })).toEqual({
      path: '$.**."fare" ? (@ == $n || @ == $s)',
      vars: { n: 275, s: "275" },
    });
  });
});

describe("searchWords", () => {
  it("is the phrase without its quotes, or a condition's value", () => {
    expect(searchWords(ok('"fence line"'))).toBe("fence line");
    expect(searchWords(ok("sensor:SN-9"))).toBe("SN-9");
  });
});
