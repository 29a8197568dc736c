import { describe, expect, it } from "vitest";
import { ROUTE_MODULES } from "../../app/api/route-modules.generated";
import { openApiDocument as documentOf } from "../../lib/api/route-operations";

// The OpenAPI document built from the route files (tests/unit/route-descriptions.test.ts checks each file is in it).

const openApiDocument = () => documentOf(ROUTE_MODULES);

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with resolvable component references", () => {
    const doc = openApiDocument();
    expect(doc.openapi).toBe("3.1.0");
    const text = JSON.stringify(doc);
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas, name).toHaveProperty(name!);
    expect(text).not.toContain("#/$defs/");
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
