import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteHandler } from "../../lib/api/handler";
import { can, ROLES, type Permission, type Role } from "../../lib/auth/permissions";
import { closeDb, type Db } from "../../lib/db/client";
import { makeToken, makeUser, setTestAuthEnv } from "./auth-helpers";
import { testDb } from "./helpers";

// Every route handler on disk, checked against the permission table: a route added without defineRoute, or
// public by accident, fails here. New routes are picked up without touching this file, unless they are
// meant to be public (PUBLIC below) or are not ours (NOT_DEFINE_ROUTE).

setTestAuthEnv();

/** Routes anyone may call, as "METHOD /api/path". Adding one here is a security decision: say why. */
const PUBLIC = new Set([
  "GET /api/health", // load balancers and the launcher probe it without credentials
  "GET /api/health/live", // the orchestrator's liveness probe: the process answers (no data)
  "GET /api/health/ready", // the balancer's readiness probe: database, migrations, stopping (no data)
  "GET /api/openapi.json", // the API's description (no data): client generators and docs viewers fetch it unauthenticated
  // the catch-all for paths no route claims: it answers 404 (JSON) and touches nothing
  ...["GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => `${m} /api/1`),
]);

/** Route files that are not built with defineRoute, and why. */
const NOT_DEFINE_ROUTE = new Map([
  ["api/auth/[...all]/route.ts", "better-auth's own endpoints (sign-in, sign-out…): it checks origins and rate-limits itself"],
]);

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

interface RouteFile {
  file: string; // relative to app/
  url: string;
  params: Record<string, string | string[]>;
}

function routeFiles(): RouteFile[] {
  const appDir = join(process.cwd(), "app");
  return readdirSync(join(appDir, "api"), { recursive: true, encoding: "utf8" })
    .filter((f) => /(^|[/\\])route\.(ts|tsx|js|mjs)$/.test(f))
    .map((f) => `api/${f.split(sep).join("/")}`)
    .sort()
    .map((file) => {
      const params: Record<string, string | string[]> = {};
      const segments = file
        .split("/")
        .slice(0, -1)
        .filter((s) => !/^\(.*\)$/.test(s)); // route groups are not in the URL
      const url = segments
        .map((s) => {
          const catchAll = /^\[\[?\.\.\.(\w+)\]\]?$/.exec(s)?.[1];
          const dynamic = /^\[(\w+)\]$/.exec(s)?.[1];
          if (catchAll) params[catchAll] = ["1"];
          else if (dynamic) params[dynamic] = "1";
          else return s;
          return "1"; // a dummy id: the access check runs before anything looks it up
        })
        .join("/");
      return { file, url: `/${url}`, params };
    });
}

const files = routeFiles();
const modules = new Map<string, Record<string, unknown>>();
for (const f of files) modules.set(f.file, (await import(join(process.cwd(), "app", f.file))) as Record<string, unknown>);

const handlers = files.flatMap((f) =>
  METHODS.filter((m) => typeof modules.get(f.file)?.[m] === "function").map((method) => ({
    ...f,
    method,
    handler: modules.get(f.file)![method] as Partial<RouteHandler> &
      ((req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>),
  })),
);

let db: Db;
const tokens = new Map<Role, string>();

beforeAll(async () => {
  db = await testDb({ truncate: ["user"] });
  for (const role of ROLES) tokens.set(role, await makeToken(db, (await makeUser(db, role)).id));
});

afterAll(async () => {
  await db.pool.end();
  await closeDb();
});

async function call(h: (typeof handlers)[number], token?: string): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await h.handler(new Request(`http://localhost${h.url}`, { method: h.method, headers }), {
    params: Promise.resolve(h.params),
  });
  let body: unknown = null;
  if (res.status === 401 || res.status === 403) body = await res.json().catch(() => null);
  else await res.body?.cancel(); // a streaming route must not keep the test waiting
  return { status: res.status, body };
}

describe("route access", () => {
  it("finds the route files", () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.map((f) => f.file)).toContain("api/tokens/route.ts");
  });

  it("better-auth's route, too, answers methods it lacks with 405 in JSON", async () => {
    const put = handlers.find((h) => h.file === "api/auth/[...all]/route.ts" && h.method === "PUT");
    const res = await put!.handler(new Request("http://localhost/api/auth/sign-in/email", { method: "PUT" }), {
      params: Promise.resolve({ all: ["sign-in", "email"] }),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
    expect(await res.json()).toMatchObject({ error: { code: "method_not_allowed" } });
  });

  it("better-auth's route answers a path it does not have (or a disabled one) with a JSON 404 naming it", async () => {
    for (const [method, path] of [
      ["GET", "/api/auth/whatever"],
      ["POST", "/api/auth/sign-up/email"],
    ] as const) {
      const h = handlers.find((x) => x.file === "api/auth/[...all]/route.ts" && x.method === method);
      const res = await h!.handler(
        new Request(`http://localhost${path}`, {
          method,
          headers: { "content-type": "application/json", origin: "http://localhost" },
          ...(method === "POST" ? { body: "{}" } : {}),
        }),
        { params: Promise.resolve({ all: path.split("/").slice(3) }) },
      );
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({
        error: { code: "not_found", message: `no API route ${method} ${path} (see /api/openapi.json)` },
      });
    }
  });

  it("lists only existing routes as exceptions and public", () => {
    for (const file of NOT_DEFINE_ROUTE.keys()) expect(files.map((f) => f.file)).toContain(file);
    const existing = new Set(handlers.map((h) => `${h.method} ${h.url}`));
    for (const p of PUBLIC) expect(existing, `PUBLIC lists ${p}, which does not exist`).toContain(p);
  });

  describe.each(handlers.filter((h) => !NOT_DEFINE_ROUTE.has(h.file)))("$method $url ($file)", (h) => {
    it("is built with defineRoute", () => {
      expect(
        h.handler.meta,
        `${h.file} exports ${h.method} without defineRoute: wrap it so authentication and the permission check run`,
      ).toBeDefined();
      expect(h.handler.meta?.access).toBeDefined();
    });

    const access = h.handler.meta?.access;
    const key = `${h.method} ${h.url}`;

    if (access && "notAllowed" in access) {
      it("answers 405 in JSON, with Allow naming the methods the route has", async () => {
        const res = await h.handler(new Request(`http://localhost${h.url}`, { method: h.method }), { params: Promise.resolve(h.params) });
        expect(res.status).toBe(405);
        const has = handlers
          .filter((o) => o.file === h.file && !(o.handler.meta?.access && "notAllowed" in o.handler.meta.access))
          .map((o) => o.method);
        expect(
          res.headers
            .get("allow")
            ?.split(", ")
            .filter((m) => m !== "HEAD" && m !== "OPTIONS")
            .sort(),
        ).toEqual(has.sort());
        expect(await res.json()).toMatchObject({ error: { code: "method_not_allowed", allow: res.headers.get("allow") } });
      });
      return;
    }

    if (access && "public" in access) {
      it("is public, and listed as such", () => {
        expect(PUBLIC, `${key} is public but not in PUBLIC: list it (with the reason) or give it a permission`).toContain(key);
      });
      return;
    }

    if (!access) return;
    const permission: Permission = access.permission;

    it("is not listed as public", () => {
      expect(PUBLIC.has(key), `${key} is in PUBLIC but requires ${permission}`).toBe(false);
    });

    it("refuses a request without credentials with 401", async () => {
      expect((await call(h)).status).toBe(401);
    });

    const without = ROLES.find((r) => !can(r, permission));
    if (without) {
      it(`refuses role ${without} (no ${permission}) with 403 naming the permission`, async () => {
        const res = await call(h, tokens.get(without));
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: { code: "forbidden", permission } });
      });
    }

    const withIt = ROLES.find((r) => can(r, permission))!;
    it(`lets role ${withIt} (has ${permission}) past the access check`, async () => {
      const res = await call(h, tokens.get(withIt));
      expect([401, 403], `${key} refused ${withIt}: ${JSON.stringify(res.body)}`).not.toContain(res.status);
    });
  });
});

describe("a path no route claims", () => {
  it("answers a JSON 404 naming the method and path, for every method", async () => {
    const mod = modules.get("api/[...path]/route.ts") as Record<string, (req: Request) => Promise<Response>>;
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const res = await mod[method]!(new Request("http://localhost/api/replays/3/explode", { method }));
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toMatchObject({
        error: { code: "not_found", message: expect.stringContaining(`${method} /api/replays/3/explode`) },
      });
    }
  });
});
