import { readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import type { RouteHandler } from "../../lib/api/handler";
import { OPERATIONS, openApiDocument } from "../../lib/api/openapi-routes";
import { setTestAuthEnv } from "./auth-helpers";

// The OpenAPI document lists every route file and method under app/api, with the permission its handler checks.

setTestAuthEnv();

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const appDir = join(process.cwd(), "app");
const files = readdirSync(join(appDir, "api"), { recursive: true, encoding: "utf8" })
  .filter((f) => /(^|[/\\])route\.ts$/.test(f))
  .map((f) => `api/${f.split(sep).join("/")}`);

/** app/api/dead-letters/[id]/actions/route.ts → /api/dead-letters/{id}/actions */
const toPath = (file: string) => `/${file.replace(/\/route\.ts$/, "").replace(/\[(\w+)\]/g, "{$1}")}`;

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with resolvable component references", () => {
    const doc = openApiDocument();
    expect(doc.openapi).toBe("3.1.0");
    const text = JSON.stringify(doc);
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas, name).toHaveProperty(name!);
    expect(text).not.toContain("#/$defs/");
  });

  it.each(files.filter((f) => !f.includes("[...")))("documents every method of %s with its handler's access", async (file) => {
    const mod = (await import(join(appDir, file))) as Record<string, RouteHandler | undefined>;
    const path = toPath(file);
    for (const method of METHODS) {
      const handler = mod[method];
      // Methods a route does not have answer 405 (otherMethods): nothing to document.
      if (!handler || "notAllowed" in (handler.meta?.access ?? {})) continue;
      const op = OPERATIONS.find((o) => o.path === path && o.method === method.toLowerCase());
      expect(op, `${method} ${path} is not in lib/api/openapi-routes.ts`).toBeDefined();
      expect(op!.access).toEqual(handler.meta?.access);
    }
  });

  it("documents the triage action body from the handler's own schema", () => {
    const action = openApiDocument().components.schemas.ActionBody as { oneOf: { properties: { action: { const: string } } }[] };
    expect(action.oneOf.map((o) => o.properties.action.const).sort()).toEqual(["approve", "edit", "quarantine", "reopen"]);
  });

  it("documents the 404 of every route under /api/replays/{id} (they all answer it for an unknown batch)", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const batchPaths = Object.keys(paths).filter((p) => p.startsWith("/api/replays/{id}"));
    expect(batchPaths.length).toBeGreaterThanOrEqual(8);
    for (const p of batchPaths)
      for (const [method, op] of Object.entries(paths[p]!)) expect(op.responses, `${method} ${p}`).toHaveProperty("404");
  });

  it("documents both body formats of the ingest boundaries", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { requestBody: { content: Record<string, unknown> } }>>;
    for (const p of ["/api/dead-letters", "/api/afc/taps"]) {
      expect(Object.keys(paths[p]!.post!.requestBody.content).sort(), p).toEqual(["application/json", "application/x-ndjson"]);
    }
  });
});
