import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ROUTE_MODULES } from "../../app/api/route-modules.generated";
import { defineRoute, otherMethods, type RouteHandler } from "../../lib/api/handler";
import { openApiDocument, openApiPath, operationsOf } from "../../lib/api/route-operations";
import { SINK_TYPES } from "../../lib/replay/sinks/registry";
import { ROUTE_MODULES_FILE, routeDirs, routeModulesSource } from "../../scripts/route-modules";

// Routes describe themselves: every method a route file under app/api answers carries its OpenAPI description
// (the `openapi` of its defineRoute), and /api/openapi.json is built from the route files, all of them.

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const root = join(import.meta.dirname, "../..");

describe("the route list", () => {
  it("is current: every route file under app/api, and nothing else (npm run routes:list rewrites it)", () => {
    expect(readFileSync(join(root, ROUTE_MODULES_FILE), "utf8"), "run `npm run routes:list`").toBe(routeModulesSource(root));
    expect(ROUTE_MODULES.map((r) => r.dir)).toEqual(routeDirs(root));
  });
});

describe("routes describe themselves", () => {
  it.each(ROUTE_MODULES.map((r) => [`app/api/${r.dir}/route.ts`, r] as const))("%s", (_, route) => {
    const { dir, module } = route;
    let answered = 0;
    for (const method of METHODS) {
      const handler = module[method] as RouteHandler | undefined;
      if (!handler || "notAllowed" in handler.meta.access) continue;
      answered++;
      const described = handler.meta.openapi;
      expect(described, `${method} in app/api/${dir}/route.ts has no openapi description`).toBeDefined();
      if (!described || "undocumented" in described) continue;
      const subpaths = "subpaths" in described ? Object.keys(described.subpaths) : [""];
      for (const sub of subpaths) {
        const path = `${openApiPath(dir)}${sub}`;
        const op = operationsOf([route]).find((o) => o.path === path && o.method === method.toLowerCase());
        expect(op, `${method} ${path} is not documented`).toBeDefined();
        expect(op!.access).toEqual(handler.meta.access);
      }
    }
    expect(answered, "a route file answers at least one method").toBeGreaterThan(0);
  });

  it("build one document, an operation for each method they describe", () => {
    const paths = openApiDocument(ROUTE_MODULES).paths as Record<string, Record<string, unknown>>;
    expect(Object.values(paths).reduce((n, item) => n + Object.keys(item).length, 0)).toBe(operationsOf(ROUTE_MODULES).length);
    expect(paths["/api/openapi.json"]).toHaveProperty("get");
  });

  it("list the registered sink types where a contract names one without the registry (a record's latest replay, a rule's sink)", () => {
    const doc = openApiDocument(ROUTE_MODULES) as unknown as { components: { schemas: Record<string, { enum?: unknown }> } };
    expect(doc.components.schemas.SinkType?.enum).toEqual([...SINK_TYPES]);
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/SinkType"/g) ?? [];
    expect(refs.length).toBeGreaterThanOrEqual(3); // LastReplay.sink; POST /api/rules and PATCH /api/rules/{id}: replay.sink.type
    expect(JSON.stringify(doc.components.schemas.LastReplay)).toContain('"sink":{"$ref":"#/components/schemas/SinkType"}');
  });

  it("refuses a route whose handler carries no description", () => {
    const bare = Object.assign(async () => new Response(), { meta: { access: { public: true as const } } });
    expect(() => operationsOf([{ dir: "things", module: { GET: bare } }])).toThrow(/GET \/api\/things .*does not describe itself/);
    expect(() => operationsOf([{ dir: "things", module: { GET: async () => new Response() } }])).toThrow(/not a described handler/);
  });

  it("reads the path from the folder, the parameters and body from the route's schemas, and skips 405 answers", () => {
    const POST = defineRoute(
      {
        access: { permission: "dead_letters:triage" },
        params: z.object({ id: z.string() }),
        body: z.object({ note: z.string() }),
        openapi: { tag: "triage", summary: "Do a thing", responses: { 200: { description: "Done" } } },
      },
      async () => ({}),
    );
    const { GET } = otherMethods("POST");
    const [op, ...rest] = operationsOf([{ dir: "things/[id]/do", module: { POST, GET } }]);
    expect(rest).toEqual([]);
    expect(op).toMatchObject({ method: "post", path: "/api/things/{id}/do", access: { permission: "dead_letters:triage" } });
    expect(Object.keys(op!.params!.shape)).toEqual(["id"]);
    expect(op!.body).toBeDefined();
  });

  it("documents a catch-all route by the paths it describes, and leaves out one that says why", () => {
    const notFound = defineRoute({ access: { public: true }, openapi: { undocumented: "answers 404" } }, async () => ({}));
    expect(operationsOf([{ dir: "[...path]", module: { GET: notFound } }])).toEqual([]);
    const described = defineRoute(
      { access: { public: true }, openapi: { tag: "meta", summary: "Anything", responses: { 200: { description: "ok" } } } },
      async () => ({}),
    );
    expect(() => operationsOf([{ dir: "auth/[...all]", module: { GET: described } }])).toThrow(/catch-all/);
  });
});
