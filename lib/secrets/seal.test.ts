import { describe, expect, it } from "vitest";
import { seal, sealKey, unseal } from "./seal";

const key = sealKey("k".repeat(40));

describe("seal", () => {
  it("round-trips, with a fresh IV each time, and never holds the plain text", () => {
    const url = "amqp://user:s3cret@rabbit.internal:5672/vh?heartbeat=10";
    const a = seal(url, key);
    const b = seal(url, key);
    expect(a).not.toBe(b);
    expect(a).not.toContain("s3cret");
    expect(a.startsWith(`v1.${key.id}.`)).toBe(true);
    expect(unseal(a, key)).toBe(url);
  });

  it("says which key a value was sealed with when another key reads it", () => {
    const other = sealKey("o".repeat(40));
    expect(() => unseal(seal("x", key), other)).toThrow(/sealed with another key \(\w{8}; this one is \w{8}\)/);
  });

  it("refuses an altered value and one that is not sealed", () => {
    const sealed = seal("redis://:pw@host:6379", key);
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString("base64url");
    expect(() => unseal(parts.join("."), key)).toThrow(/altered/);
    expect(() => unseal("redis://host", key)).toThrow(/not a sealed value/);
  });
});
