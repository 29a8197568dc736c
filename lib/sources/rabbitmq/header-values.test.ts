import { describe, expect, it } from "vitest";
import { amqpSecondsToIso, decimalText, isoToAmqpSeconds, toAmqpValue, toHeaders, toHeaderValue } from "./header-values";

describe("toHeaderValue", () => {
  it("keeps JSON's own values", () => {
    expect(toHeaderValue("a")).toBe("a");
    expect(toHeaderValue(-7)).toBe(-7);
    expect(toHeaderValue(1.25)).toBe(1.25);
    expect(toHeaderValue(false)).toBe(false);
    expect(toHeaderValue(null)).toBeNull();
    expect(toHeaderValue(undefined)).toBeNull();
  });

  it("writes bytes as base64, bigints and non-finite doubles as text", () => {
    expect(toHeaderValue(Buffer.from("hé"))).toEqual({ base64: "aMOp" });
    expect(toHeaderValue(new Uint8Array([0, 255]))).toEqual({ base64: "AP8=" });
    expect(toHeaderValue(2n ** 64n)).toBe("18446744073709551616");
    expect(toHeaderValue(Number.NaN)).toBe("NaN");
    expect(toHeaderValue(Number.NEGATIVE_INFINITY)).toBe("-Infinity");
  });

  it("writes amqplib's tagged timestamps (seconds) and decimals as text", () => {
    expect(toHeaderValue({ "!": "timestamp", value: 0 })).toBe("1970-01-01T00:00:00.000Z");
    expect(toHeaderValue({ "!": "decimal", value: { places: 2, digits: 12345 } })).toBe("123.45");
    expect(toHeaderValue(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe("2026-01-02T03:04:05.000Z");
  });

  it("recurses into tables and arrays", () => {
    expect(toHeaders({ t: { a: [Buffer.from([1]), { "!": "timestamp", value: 60 }] } })).toEqual({
      t: { a: [{ base64: "AQ==" }, "1970-01-01T00:01:00.000Z"] },
    });
  });

  it("leaves a table that merely has a '!' key alone", () => {
    expect(toHeaderValue({ "!": "note" })).toEqual({ "!": "note" });
  });
});

describe("decimalText", () => {
  it("places the point exactly, padding with zeros", () => {
    expect(decimalText(5, 3)).toBe("0.005");
    expect(decimalText(120, 0)).toBe("120");
    expect(decimalText(100, 2)).toBe("1.00");
  });
});

describe("AMQP timestamps", () => {
  it("are seconds; out-of-range values are no date", () => {
    expect(amqpSecondsToIso(1700000000)).toBe("2023-11-14T22:13:20.000Z");
    expect(amqpSecondsToIso(253402300799)).toBe("9999-12-31T23:59:59.000Z");
    expect(amqpSecondsToIso(253402300800)).toBeNull();
    expect(amqpSecondsToIso(-1)).toBeNull();
    expect(isoToAmqpSeconds("2023-11-14T22:13:20.000Z")).toBe(1700000000);
    expect(isoToAmqpSeconds("not a date")).toBeNull();
  });
});

describe("toAmqpValue", () => {
  it("turns {base64} back into bytes, everything else as it is", () => {
    const back = toAmqpValue({ b: { base64: "AQL/" }, list: [{ base64: "AA==" }, 1, "s"], ts: "2023-11-14T22:13:20.000Z" });
    expect(back).toEqual({ b: Buffer.from([1, 2, 255]), list: [Buffer.from([0]), 1, "s"], ts: "2023-11-14T22:13:20.000Z" });
  });

  it("keeps a table with more than the base64 key a table", () => {
    expect(toAmqpValue({ base64: "AA==", other: 1 })).toEqual({ base64: "AA==", other: 1 });
  });
});
