import { describe, expect, it } from "vitest";
import { startedByRedrive } from "./fetch-site";

const headers = (site?: string) => new Headers(site === undefined ? {} : { "sec-fetch-site": site });

describe("reads started by Redrive itself", () => {
  it("are those from its own pages, typed or bookmarked, or from tools that send no Sec-Fetch-Site", () => {
    expect(startedByRedrive(headers("same-origin"))).toBe(true);
    expect(startedByRedrive(headers("none"))).toBe(true);
    expect(startedByRedrive(headers())).toBe(true);
  });

  it("are not those a page on another site, port or sibling subdomain started", () => {
    expect(startedByRedrive(headers("cross-site"))).toBe(false);
    expect(startedByRedrive(headers("same-site"))).toBe(false);
    expect(startedByRedrive(headers("something-new"))).toBe(false);
  });
});
