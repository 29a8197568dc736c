import { describe, expect, it } from "vitest";
import { z } from "zod";
import { queryNumber } from "./query-number";

const Query = z.object({
  limit: queryNumber(z.number().int().min(1).max(500).default(100)),
  zoom: queryNumber(z.number().min(0).max(24)).optional(),
});
const issues = (v: unknown) => {
  const r = Query.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("queryNumber", () => {
  it("reads decimal text, a sign and a fraction, and leaves an absent parameter to its default", () => {
    expect(Query.parse({ limit: "20", zoom: "3.5" })).toEqual({ limit: 20, zoom: 3.5 });
    expect(Query.parse({ limit: "+7", zoom: ".5" })).toEqual({ limit: 7, zoom: 0.5 });
    expect(Query.parse({})).toEqual({ limit: 100 });
  });

  it("refuses what Number() would read but no one writes as a count, naming the parameter", () => {
    for (const text of ["0x10", "0b11", "0o7", "1e2", " 7", "Infinity", "1_000"]) {
      expect(issues({ limit: text }), text).toEqual(["limit: must be a number in decimal digits"]);
    }
  });

  it("leaves the range, whole numbers and a repeated parameter to the number's own rules", () => {
    expect(issues({ limit: "0" })).toEqual(["limit: Too small: expected number to be >=1"]);
    expect(issues({ limit: "1.5" })).toEqual(["limit: Invalid input: expected int, received number"]);
    expect(issues({ limit: ["1", "2"] })).toEqual(["limit: Invalid input: expected number, received array"]);
  });

  it("documents the parameter as the number it is", () => {
    expect(z.toJSONSchema(Query, { io: "input" }).properties?.limit).toEqual({ type: "integer", minimum: 1, maximum: 500, default: 100 });
  });
});
