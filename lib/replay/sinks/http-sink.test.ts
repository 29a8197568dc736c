import { describe, expect, it } from "vitest";
import { idempotencyHeader } from "./http-sink";

describe("idempotencyHeader", () => {
  it("sends the key's UTF-8 bytes, so any printable key arrives verbatim", () => {
    for (const key of ["abc-123", "Mixed CASE/key:x=1", "clé-ü-€", "地図-🗺️"]) {
      const h = idempotencyHeader(key);
      if (!("value" in h)) throw new Error(h.problem);
      expect([...h.value].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true); // a byte string, as fetch needs
      expect(Buffer.from(h.value, "latin1").toString("utf8")).toBe(key);
    }
  });

  it("names what a header cannot carry: control characters, white space at either end", () => {
    expect(idempotencyHeader("a\nb")).toEqual({
      problem: "the idempotency key cannot be sent in an HTTP header: control character U+000A at character 1",
    });
    expect(idempotencyHeader("🗺️x\u007f")).toMatchObject({ problem: expect.stringContaining("U+007F at character 3") });
    expect(idempotencyHeader(" key")).toMatchObject({ problem: expect.stringContaining("white space") });
    expect(idempotencyHeader("key\t")).toMatchObject({ problem: expect.stringContaining("white space") });
    expect(idempotencyHeader("a\tb")).toEqual({ value: "a\tb" });
  });
});
