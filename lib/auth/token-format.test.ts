import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bearerToken, displayPrefix, generateToken, hashToken, isWellFormedToken, TOKEN_PREFIX } from "./token-format";

describe("API token format", () => {
  it("is rdv_ + 32 random bytes in base64url", () => {
    const t = generateToken();
    expect(t).toMatch(/^rdv_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(t.slice(TOKEN_PREFIX.length), "base64url")).toHaveLength(32);
    expect(isWellFormedToken(t)).toBe(true);
    expect(new Set(Array.from({ length: 200 }, generateToken)).size).toBe(200);
  });

  it("stores the SHA-256 hex of the whole token, never the token", () => {
    const t = "rdv_" + "A".repeat(43);
    expect(hashToken(t)).toBe(createHash("sha256").update(t).digest("hex"));
    expect(hashToken(t)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(t)).not.toContain(t.slice(4));
    expect(hashToken(t)).not.toBe(hashToken(t.slice(0, -1) + "B"));
  });

  it("keeps only a short prefix in clear", () => {
    const t = generateToken();
    expect(displayPrefix(t)).toBe(t.slice(0, 10));
    expect(displayPrefix(t).startsWith("rdv_")).toBe(true);
  });
});

describe("bearerToken", () => {
  const good = "rdv_" + "x".repeat(43);
  it("reads Authorization: Bearer <token>", () => {
    expect(bearerToken(`Bearer ${good}`)).toBe(good);
    expect(bearerToken(`bearer  ${good} `)).toBe(good);
  });
  it("undefined without bearer credentials (the session cookie is then used)", () => {
    expect(bearerToken(null)).toBeUndefined();
    expect(bearerToken("Basic dXNlcjpwYXNz")).toBeUndefined();
  });
  it("null for a malformed bearer token (refused, no fallback to the cookie)", () => {
    expect(bearerToken("Bearer")).toBeNull();
    expect(bearerToken("Bearer abc")).toBeNull();
    expect(bearerToken(`Bearer ${good}x`)).toBeNull();
    expect(bearerToken(`Bearer ${good} extra`)).toBeNull();
    expect(bearerToken("Bearer rdv_" + "é".repeat(43))).toBeNull();
  });
});
