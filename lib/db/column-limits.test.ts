import { describe, expect, it } from "vitest";
import { AuditQuerySchema } from "../audit/log-schema";
import { decodeCursor, encodeCursor } from "../dead-letters/query/cursor";
import { ListFilterSchema } from "../dead-letters/filters";
import { IdSchema } from "../dead-letters/contract/record-id";
import { BatchIdParams, CreateBatchBody, ItemsQuery } from "../replay/batch/batch-schemas";
import { isBigintId } from "./column-limits";
import { inTimeRange, isImpossibleCalendarDate } from "../time/range";

describe("PostgreSQL ranges at the boundary", () => {
  it("takes bigint ids up to 2^63 - 1 and no further", () => {
    expect(isBigintId("9223372036854775807")).toBe(true);
    expect(isBigintId("9223372036854775808")).toBe(false);
    expect(isBigintId("9999999999999999999")).toBe(false);
    expect(isBigintId("12a")).toBe(false);
    expect(IdSchema.safeParse("9999999999999999999").success).toBe(false);
    expect(BatchIdParams.safeParse({ id: "9999999999999999999" }).error?.issues[0]?.message).toBe("must be a batch id");
    expect(AuditQuerySchema.safeParse({ cursor: "9999999999999999999" }).success).toBe(false);
    const body = { ids: ["1", "9999999999999999999"], sink: { type: "ledger" }, ratePerSecond: 10 };
    expect(CreateBatchBody.safeParse(body).error?.issues[0]?.path).toEqual(["ids", 1]);
    expect(ItemsQuery.safeParse({ cursor: "2147483648" }).success).toBe(false);
    expect(ItemsQuery.safeParse({ cursor: "2147483647" }).success).toBe(true);
  });

  it("takes times within years 0001–9999 and refuses days that do not exist", () => {
    expect(inTimeRange(new Date("9999-12-31T23:59:59Z"))).toBe(true);
    expect(inTimeRange(new Date("+275760-09-13T00:00:00Z"))).toBe(false);
    expect(isImpossibleCalendarDate("2026-02-30")).toBe(true);
    expect(isImpossibleCalendarDate("2024-02-29T00:00:00Z")).toBe(false);
    expect(isImpossibleCalendarDate("2026-13-01")).toBe(true);
    const from = (v: string) => ListFilterSchema.safeParse({ from: v });
    expect(from("0000-12-31T23:59:59Z").error?.issues[0]?.message).toBe("must be between the years 0001 and 9999");
    expect(from("-005000-01-01T00:00:00Z").success).toBe(false); // an extended year is no RFC 3339
    expect(from("+275760-09-13T00:00:00Z").success).toBe(false);
    expect(from("99999999999999").success).toBe(false);
    expect(from("2026-02-30").error?.issues[0]?.message).toBe(
      "must be an RFC 3339 time (without an offset: UTC), a day YYYY-MM-DD (UTC) or epoch seconds",
    );
    expect(from("2026-11-29T10:00:00Z").data?.from).toBe("2026-11-29T10:00:00.000000Z");
    expect(from("1764410400").data?.from).toBe("2025-11-29T10:00:00.000000Z");
    // to the microsecond, as observed_at is stored: a record's own time bounds a range that holds it
    expect(from("2026-11-29T10:00:00.123456+01:00").data?.from).toBe("2026-11-29T09:00:00.123456Z");
    expect(from("1764410400.123456").data?.from).toBe("2025-11-29T10:00:00.123456Z");
    expect(from("2026-11-29").data?.from).toBe("2026-11-29T00:00:00.000000Z");
  });

  it("decodes only cursors this API wrote", () => {
    const good = encodeCursor({ observedAt: "2026-11-29T10:00:00.000Z", id: "42" });
    expect(decodeCursor(good)).toEqual({ observedAt: "2026-11-29T10:00:00.000Z", id: "42" });
    for (const raw of [
      ["2026", "1"],
      ["1", "1"],
      ["+275760-09-13T00:00:00Z", "1"],
      ["2026-02-30T00:00:00.000Z", "1"],
      ["2026-11-29T10:00:00.000Z", "9999999999999999999"],
    ]) {
      expect(() => decodeCursor(Buffer.from(JSON.stringify(raw)).toString("base64url"))).toThrow(
        "cursor: not a cursor returned by this API",
      );
    }
  });
});
