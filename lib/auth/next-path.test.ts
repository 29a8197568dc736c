import { describe, expect, it } from "vitest";
import { safeNextPath } from "./next-path";

describe("safeNextPath", () => {
  it("keeps same-site paths with their query", () => {
    expect(safeNextPath("/dead-letters?status=pending")).toBe("/dead-letters?status=pending");
    expect(safeNextPath("/settings")).toBe("/settings");
  });
  it("refuses anything that could leave the site or loop", () => {
    for (const bad of [
      null,
      undefined,
      "",
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "evil",
      "/x\ny",
      "/sign-in",
      "/sign-in?next=/x",
    ]) {
      expect(safeNextPath(bad), String(bad)).toBe("/");
    }
  });

  it("percent-encodes what a Location header cannot carry (a 500 before), and gives up on a lone surrogate", () => {
    expect(safeNextPath("/\u3002x")).toBe("/%E3%80%82x");
    expect(safeNextPath("/lookup?q=caf\u00e9 1")).toBe("/lookup?q=caf%C3%A9%201");
    expect(safeNextPath("/x%20y")).toBe("/x%20y");
    expect(safeNextPath("/\ud800")).toBe("/");
  });
});
