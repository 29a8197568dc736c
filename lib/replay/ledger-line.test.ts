import { describe, expect, it } from "vitest";
import { LedgerLineSchema } from "./ledger-import";

describe("ledger import lines", () => {
  it("refuses, per line, a key PostgreSQL cannot store or index", () => {
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k-1" }).success).toBe(true);
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k\u0000" }).error?.issues[0]?.message).toContain("NUL");
    expect(LedgerLineSchema.safeParse({ idempotency_key: "é".repeat(600) }).error?.issues[0]?.message).toBe("is too long: 1,200 bytes (UTF-8), at most 1,000");
  });

  it("refuses, per line, a time PostgreSQL cannot store", () => {
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k", applied_at: "0000-01-01T00:00:00Z" }).success).toBe(false);
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k", applied_at: "9999-12-31T23:59:59-05:00" }).success).toBe(false);
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k", applied_at: "2026-11-30T10:00:00+01:00" }).success).toBe(true);
  });
});
