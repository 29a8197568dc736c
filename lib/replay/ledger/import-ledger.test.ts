import { describe, expect, it } from "vitest";
import { LedgerLineSchema } from "./import-ledger";

describe("ledger import lines", () => {
  it("refuses, per line, a key PostgreSQL cannot store or index", () => {
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k-1" }).success).toBe(true);
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k\u0000" }).error?.issues[0]?.message).toContain("NUL");
    expect(LedgerLineSchema.safeParse({ idempotency_key: "é".repeat(600) }).error?.issues[0]?.message).toBe(
      "is too long: 1,200 bytes (UTF-8), at most 1,000",
    );
  });

  it("reads applied_at as ingest reads RFC 3339 (either case, a space for the T), with an offset, to the microsecond", () => {
    const at = (applied_at: unknown) => LedgerLineSchema.safeParse({ idempotency_key: "k", applied_at });
    expect(at("2026-01-01t00:00:00z").data?.applied_at).toBe("2026-01-01T00:00:00.000000Z");
    expect(at("2026-01-01 01:00:00.1234567+01:00").data?.applied_at).toBe("2026-01-01T00:00:00.123457Z");
    expect(at("2026-01-01T00:00:00").error?.issues[0]?.message).toBe("must be an RFC 3339 timestamp with an offset or epoch seconds");
    expect(at("0000-01-01T00:00:00Z").error?.issues[0]?.message).toBe("must be between the years 0001 and 9999 (UTC)");
  });

  it("refuses, per line, a time PostgreSQL cannot store", () => {
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k", applied_at: "0000-01-01T00:00:00Z" }).success).toBe(false);
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k", applied_at: "9999-12-31T23:59:59-05:00" }).success).toBe(false);
    expect(LedgerLineSchema.safeParse({ idempotency_key: "k", applied_at: "2026-11-30T10:00:00+01:00" }).success).toBe(true);
  });

  it("takes a tap's event_hash as its key (kind afc, lower-case hex) and epoch seconds for applied_at", () => {
    const hash = "AB".repeat(32);
    expect(LedgerLineSchema.parse({ event_hash: hash, applied_at: 1_700_000_000 })).toEqual({
      idempotency_key: "ab".repeat(32),
      kind: "afc",
      applied_at: "2023-11-14T22:13:20.000000Z",
    });
    expect(LedgerLineSchema.parse({ idempotency_key: "k", applied_at: "2026-11-30T10:00:00Z" })).toEqual({
      idempotency_key: "k",
      kind: undefined,
      applied_at: "2026-11-30T10:00:00.000000Z",
    });
    const issue = (line: unknown) => LedgerLineSchema.safeParse(line).error?.issues[0];
    expect(issue({})).toMatchObject({ path: ["idempotency_key"], message: "give idempotency_key or event_hash (one of them)" });
    expect(issue({ idempotency_key: "k", event_hash: hash })?.path).toEqual(["idempotency_key"]);
    expect(issue({ event_hash: "abc" })).toMatchObject({ path: ["event_hash"], message: expect.stringContaining("64 hex") });
    expect(issue({ event_hash: hash, kind: "spatial" })?.path).toEqual(["kind"]);
    expect(issue({ idempotency_key: "k", applied_at: 1_700_000_000_000 })?.path).toEqual(["applied_at"]);
    expect(issue({ idempotency_key: "k", applied_at: "yesterday" })?.path).toEqual(["applied_at"]);
  });
});
