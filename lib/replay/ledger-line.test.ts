import { describe, expect, it } from "vitest";
import { LedgerLineSchema } from "./ledger-import";

describe("ledger import lines", () => {
  it("refuses, per line, a key PostgreSQL cannot store or index", () => {
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k-1" }).success).toBe(true);
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k\u0000" }).error?.issues[0]?.message).toContain("NUL");
    expect(LedgerLineSchema.safeParse({ idempotency_key: "é".repeat(600) }).error?.issues[0]?.message).toBe("is too long: 1,200 bytes (UTF-8), at most 1,000");
  });
});
