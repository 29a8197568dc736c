import { describe, expect, it } from "vitest";
import { AppError } from "../errors/app-error";
import { assertFourEyes } from "./four-eyes";

describe("assertFourEyes", () => {
  it("refuses the batch's creator with a forbidden AppError", () => {
    let caught: unknown;
    try {
      assertFourEyes({ createdById: "u1" }, { userId: "u1" });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe("forbidden");
    expect((caught as AppError).status).toBe(403);
    expect((caught as AppError).toJSON()).toMatchObject({ error: { code: "forbidden", rule: "four_eyes" } });
  });

  it("lets anyone else approve", () => {
    expect(() => assertFourEyes({ createdById: "u1" }, { userId: "u2" })).not.toThrow();
  });
});
