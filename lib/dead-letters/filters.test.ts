import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FilterBodySchema, ListFilterSchema } from "./filters";

// The filter's time bounds must mean one instant whatever the host's time zone: JavaScript's Date reads a time
// without seconds, or looser text, in local time, and one link then selected different records on different hosts.
describe("ListFilterSchema from/to", () => {
  let tz: string | undefined;
  beforeAll(() => {
    tz = process.env.TZ;
    process.env.TZ = "Asia/Kolkata";
  });
  afterAll(() => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });

  const bounds = (v: unknown) => {
    const r = ListFilterSchema.parse({ from: v, to: v });
    return [r.from, r.to];
  };

  it("reads RFC 3339, naive times (as UTC) and epoch seconds to the microsecond", () => {
    expect(bounds("2026-01-01T00:00:00Z")).toEqual(["2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:00.000000Z"]);
    expect(bounds("2026-01-01t05:30:00.1234567+05:30")).toEqual(["2026-01-01T00:00:00.123457Z", "2026-01-01T00:00:00.123457Z"]);
    expect(bounds("2026-01-01 00:00:00")).toEqual(["2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:00.000000Z"]);
    expect(bounds("1767225600.5")).toEqual(["2026-01-01T00:00:00.500000Z", "2026-01-01T00:00:00.500000Z"]);
  });

  it("reads a time to the minute as UTC, `to` reaching to the minute's end", () => {
    expect(bounds("2026-01-01T00:00")).toEqual(["2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:59.999999Z"]);
    expect(bounds("2026-01-01T10:00Z")).toEqual(["2026-01-01T10:00:00.000000Z", "2026-01-01T10:00:59.999999Z"]);
    expect(bounds("2026-01-01T05:30+05:30")).toEqual(["2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:59.999999Z"]);
  });

  it("reads a bare day as that whole UTC day", () => {
    expect(bounds("2026-01-01")).toEqual(["2026-01-01T00:00:00.000000Z", "2026-01-01T23:59:59.999999Z"]);
  });

  it("refuses text only a JavaScript Date would read, naming the forms it takes", () => {
    for (const v of ["Jan 1 2026", "2026/01/01", "01/02/2026", "2026-02-30", "2026-01-01T25:00"]) {
      const r = ListFilterSchema.safeParse({ from: v });
      expect(r.success, v).toBe(false);
      expect(r.error?.issues[0]).toMatchObject({ path: ["from"], message: expect.stringContaining("RFC 3339") });
    }
  });
});

describe("ListFilterSchema origin", () => {
  it("takes one broker source's name, up to 64 characters", () => {
    expect(ListFilterSchema.parse({ origin: "orders-dlq" }).origin).toBe("orders-dlq");
    expect(ListFilterSchema.safeParse({ origin: "" }).success).toBe(false);
    expect(ListFilterSchema.safeParse({ origin: "x".repeat(64) }).success).toBe(true);
    expect(ListFilterSchema.safeParse({ origin: "x".repeat(65) }).error?.issues[0]?.path).toEqual(["origin"]);
  });

  it("is a filter key a JSON body may carry (replay batches and bulk actions select by it)", () => {
    expect(FilterBodySchema.parse({ origin: "orders-dlq", status: "approved" })).toEqual({ origin: "orders-dlq", status: ["approved"] });
  });
});

describe("ListFilterSchema refuses a term holding a card number, in every text parameter", () => {
  const PAN = "4111111111111111";
  // Every parameter of the schema that takes text; a new one must be added here or to the list of non-text ones.
  const NOT_TEXT = ["kind", "status", "class", "from", "to", "bbox"];
  const textParams = Object.keys(ListFilterSchema.shape).filter((k) => !NOT_TEXT.includes(k));

  it("names the parameter", () => {
    expect(textParams.sort()).toEqual(["note", "origin", "q", "reason", "source"]);
    for (const key of textParams) {
      for (const value of [PAN, `order-${PAN}`, "4111 1111 1111 1111", `x ${PAN.slice(0, 8)}-${PAN.slice(8)}`]) {
        const r = ListFilterSchema.safeParse({ [key]: value });
        expect(r.success, `${key}=${value}`).toBe(false);
        expect(r.error?.issues[0]?.path).toEqual(key === "source" ? ["source", 0] : [key]);
        expect(r.error?.issues[0]?.message).toMatch(/holds a card number/);
      }
    }
  });

  it("keeps numbers that are not card-like: partial runs, epoch-millisecond times, hashes", () => {
    for (const value of [
      "411111111111",
      "producer-msg-1796571817221-1",
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ]) {
      for (const key of textParams) expect(ListFilterSchema.safeParse({ [key]: value }).success, `${key}=${value}`).toBe(true);
    }
  });
});
