import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { NextRequest } from "next/server";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import { config, proxy } from "../../proxy";
import { MALFORMED_PAGE_PATH } from "../../lib/api/malformed-path";

// A path whose percent-encoding does not decode is turned away by proxy.ts, before Next fails on it with a bare
// 500: every route and page on disk, with such a segment where its dynamic segments are (or after it).

const BAD_SEGMENTS = ["%C0%AE", "%C0", "%E0%A4%A", "%ZZ", "%"];

/** Every route file (app/api/**\/route.ts) or page (app/**\/page.tsx) as a URL with `bad` in its dynamic segments. */
function paths(kind: "route" | "page", bad: string): string[] {
  const appDir = join(process.cwd(), "app");
  return readdirSync(appDir, { recursive: true, encoding: "utf8" })
    .map((f) => f.split(sep).join("/"))
    .filter((f) => (kind === "route" ? /^api\/.*route\.ts$/.test(f) : /(^|\/)page\.tsx$/.test(f)))
    .map((f) => {
      const segments = f
        .split("/")
        .slice(0, -1)
        .filter((s) => !/^\(.*\)$/.test(s))
        .map((s) => (/^\[/.test(s) ? bad : s));
      if (!segments.includes(bad)) segments.push(bad);
      return `/${segments.join("/")}`;
    });
}

describe("a path that does not decode", () => {
  it("finds the routes and pages", () => {
    expect(paths("route", "%C0").length).toBeGreaterThan(50);
    expect(paths("page", "%C0").length).toBeGreaterThan(15);
  });

  it.each(BAD_SEGMENTS)("an API path with %s answers a JSON 400 naming the path, on every route, signed out", async (bad) => {
    for (const path of paths("route", bad)) {
      const url = `http://localhost${path}`;
      expect(unstable_doesMiddlewareMatch({ config, url }), path).toBe(true);
      const res = proxy(new NextRequest(url));
      expect(res.status, path).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toEqual({
        error: {
          code: "bad_request",
          message: `path: ${path} is not valid percent-encoded UTF-8`,
          issues: [{ path: "path", message: expect.any(String) }],
        },
      });
    }
  });

  it.each(BAD_SEGMENTS)("a page path with %s is shown the not-found page, on every page", (bad) => {
    for (const path of paths("page", bad)) {
      const url = `http://localhost${path}`;
      expect(unstable_doesMiddlewareMatch({ config, url }), path).toBe(true);
      const res = proxy(new NextRequest(url));
      expect(res.headers.get("x-middleware-rewrite"), path).toBe(`http://localhost${MALFORMED_PAGE_PATH}`);
    }
  });

  it("leaves paths that decode alone: the API untouched, pages with their policy", () => {
    expect(unstable_doesMiddlewareMatch({ config, url: "http://localhost/api/groups/abc" })).toBe(false);
    expect(unstable_doesMiddlewareMatch({ config, url: "http://localhost/api/groups/a%20b" })).toBe(true);
    const api = proxy(new NextRequest("http://localhost/api/groups/a%20b"));
    expect(api.headers.get("x-middleware-next")).toBe("1");
    expect(api.headers.get("content-security-policy")).toBeNull();
    const page = proxy(new NextRequest("http://localhost/dead-letters/12"));
    expect(page.headers.get("x-middleware-next")).toBe("1");
    expect(page.headers.get("content-security-policy")).toContain("nonce-");
  });
});
