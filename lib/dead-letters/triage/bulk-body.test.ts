import { describe, expect, it } from "vitest";
import { BulkBodySchema } from "../contract/bulk";

describe("BulkBodySchema", () => {
  it("refuses an empty filter without the confirmed count: it would act on every record", () => {
    const r = BulkBodySchema.safeParse({ action: "approve", filter: {} });
    expect(r.error?.issues).toEqual([
      expect.objectContaining({ path: ["filter"], message: expect.stringContaining("send expectedCount") }),
    ]);
  });

  it("takes an empty filter with the count, a dry run of it, and any narrowing filter", () => {
    expect(BulkBodySchema.safeParse({ action: "approve", filter: {}, expectedCount: 406 }).success).toBe(true);
    expect(BulkBodySchema.safeParse({ action: "approve", filter: {}, dryRun: true }).success).toBe(true);
    expect(BulkBodySchema.safeParse({ action: "approve", filter: { kind: ["afc"] } }).success).toBe(true);
  });

  it("takes ids as digit strings or numbers, and names a bad one", () => {
    expect(BulkBodySchema.parse({ action: "approve", ids: ["1", 2] }).ids).toEqual(["1", "2"]);
    expect(BulkBodySchema.safeParse({ action: "approve", ids: [0] }).success).toBe(false);
    expect(BulkBodySchema.safeParse({ action: "approve", ids: [1.5] }).success).toBe(false);
    expect(BulkBodySchema.safeParse({ action: "approve", ids: ["x"] }).error?.issues[0]?.path).toEqual(["ids", 0]);
  });
});
