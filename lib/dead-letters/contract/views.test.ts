import { describe, expect, it } from "vitest";
import { canonicalViewFilter, CreateViewBodySchema, PatchViewBodySchema } from "./views";

describe("a saved view's filter", () => {
  it("is the list's query string in canonical order, without keys that are not filters", () => {
    expect(canonicalViewFilter("?status=pending&cursor=abc&kind=afc&note=Refund")).toEqual({
      filter: "kind=afc&status=pending&note=Refund",
    });
    expect(canonicalViewFilter("")).toEqual({ filter: "" });
  });
  it("refuses a filter the list cannot read, naming the field", () => {
    const r = CreateViewBodySchema.safeParse({ name: "x", filter: "status=nope" });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["filter"]);
  });
  it("defaults to personal, newest first, the list's columns", () => {
    expect(CreateViewBodySchema.parse({ name: " Pending AFC ", filter: "kind=afc" })).toEqual({
      name: "Pending AFC",
      shared: false,
      filter: "kind=afc",
      sort: "desc",
      columns: [],
    });
  });
  it("a patch needs something to change and refuses unknown keys", () => {
    expect(PatchViewBodySchema.safeParse({}).success).toBe(false);
    expect(PatchViewBodySchema.safeParse({ owner: "me" }).success).toBe(false);
    expect(PatchViewBodySchema.parse({ shared: true })).toEqual({ shared: true });
  });
});
