import { describe, expect, it } from "vitest";
import { safeNextPath } from "./next-path";

describe("safeNextPath", () => {
  it("keeps same-site paths with their query", () => {
    expect(safeNextPath("/dead-letters?status=pending")).toBe("/dead-letters?status=pending");
    expect(safeNextPath("/settings")).toBe("/settings");
  });
  it("refuses anything that could leave the site or loop", () => {
    for (const bad of [null, undefined, "", "https://evil.example", "//evil.example", "/\\evil.example", "evil", "/x\ny", "/sign-in", "/sign-in?next=/x"]) {
      expect(safeNextPath(bad), String(bad)).toBe("/");
    }
  });
});
