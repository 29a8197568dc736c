import { describe, expect, it } from "vitest";
import * as z from "zod";
import { runSchema } from "./run-schema";

describe("runSchema", () => {
  const schema = z.strictObject({ a: z.number().min(0) });

  it("returns typed data on success", () => {
    expect(runSchema(schema, { a: 1 })).toEqual({ ok: true, data: { a: 1 } });
  });

  it("returns the same zod issues safeParse would, without a ZodError", () => {
    const input = { a: -1, b: 2 };
    const run = runSchema(schema, input);
    expect(run.ok).toBe(false);
    expect(!run.ok && run.issues).toEqual(schema.safeParse(input).error?.issues);
    expect(!run.ok && run.issues.map((i) => i.code)).toEqual(["too_small", "unrecognized_keys"]);
  });

  it("refuses async schemas", () => {
    const asyncSchema = z.string().refine(async () => true);
    expect(() => runSchema(asyncSchema, "x")).toThrow(TypeError);
  });
});
