import { describe, expect, it } from "vitest";
import { filterListHref, listReturn, recordHref } from "./record-return";

describe("the way back from a record", () => {
  it("keeps the list's filter for the neighbours, and adds back only when the list is more than that filter", () => {
    expect(recordHref("42", { status: ["pending"] }, "/dead-letters?status=pending")).toBe("/dead-letters/42?status=pending");
    expect(recordHref("42", {}, null)).toBe("/dead-letters/42");
    expect(recordHref("42", { status: ["pending"] }, "/dead-letters?status=pending&cols=status%2Ckind")).toBe(
      "/dead-letters/42?status=pending&back=%2Fdead-letters%3Fstatus%3Dpending%26cols%3Dstatus%252Ckind",
    );
    const inGroup = recordHref("7", { source: ["gates"], reason: "turnstile offline …" }, "/groups/AbC_12-xyzAbC_12x?status=approved");
    const params = new URL(inGroup, "http://x").searchParams;
    expect(params.get("source")).toBe("gates");
    expect(params.get("reason")).toBe("turnstile offline …");
    expect(params.get("back")).toBe("/groups/AbC_12-xyzAbC_12x?status=approved");
  });

  it("returns to the list named by back, labelled for it", () => {
    expect(listReturn("/groups/AbC_12-xyzAbC_12x")).toEqual({ href: "/groups/AbC_12-xyzAbC_12x", label: "← Failure group" });
    expect(listReturn("/dead-letters?cols=status")).toEqual({ href: "/dead-letters?cols=status", label: "← Dead letters" });
    expect(listReturn(null)).toBeNull();
  });

  it("never leaves the app's lists: another origin, another page or a script is no way back", () => {
    for (const bad of [
      "//evil.example/dead-letters",
      "https://evil.example/",
      "javascript:alert(1)",
      "/settings",
      "/groups/../settings",
      "/dead-letters#x",
      "/dead-letters/../admin",
      "/groups/a b",
      "",
    ])
      expect(listReturn(bad), bad).toBeNull();
    expect(recordHref("1", {}, "//evil.example/dead-letters")).toBe("/dead-letters/1");
  });

  it("the whole list under a filter", () => {
    expect(filterListHref({})).toBe("/dead-letters");
    expect(filterListHref({ kind: ["afc"] })).toBe("/dead-letters?kind=afc");
  });
});
