import { describe, expect, it } from "vitest";
import { auditKey, auditKeyring, keyIds } from "./keys";

describe("audit keys", () => {
  it("derives a stable id and separate chain and checkpoint keys from one secret", () => {
    const a = auditKey("a".repeat(40));
    expect(auditKey("a".repeat(40))).toEqual(a);
    expect(a.id).toMatch(/^[0-9a-f]{16}$/);
    expect(a.chain.equals(a.checkpoint)).toBe(false);
    expect(auditKey("b".repeat(40)).id).not.toBe(a.id);
    // The id names the key without being a piece of it.
    expect(a.chain.toString("hex")).not.toContain(a.id);
  });

  it("holds the current key and the retired ones, the current one for appends", () => {
    const ring = auditKeyring("b".repeat(40), ["a".repeat(40)]);
    expect(ring.current.id).toBe(auditKey("b".repeat(40)).id);
    expect([...ring.byId.keys()].sort()).toEqual([auditKey("a".repeat(40)).id, ring.current.id].sort());
    expect(keyIds(ring)).toContain(ring.current.id);
  });
});
