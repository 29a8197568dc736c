import { describe, expect, it } from "vitest";
import { ROUTE_MODULES } from "../../app/api/route-modules.generated";
import { openApiDocument } from "./route-operations";
import { referenceView, typeLabel } from "./reference-view";

describe("referenceView", () => {
  it("reads every operation of Redrive's own document, grouped by tag, with permissions and schemas", () => {
    const doc = openApiDocument(ROUTE_MODULES);
    const view = referenceView(doc);
    const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(view.tags.flatMap((t) => t.operations)).toHaveLength(count);
    const ingest = view.tags.flatMap((t) => t.operations).find((o) => o.method === "POST" && o.path === "/api/dead-letters");
    expect(ingest).toMatchObject({ tag: "ingest", permission: "dead_letters:ingest", public: false });
    expect(ingest?.body?.contentTypes).toEqual(["application/json", "application/x-ndjson"]);
    const own = view.tags.flatMap((t) => t.operations).find((o) => o.path === "/api/producer/records");
    expect(own?.parameters.map((p) => p.name)).toEqual(["status", "limit", "cursor"]);
    expect(own?.responses.find((r) => r.status === "200")?.schema).not.toBeNull();
    expect(view.tags.flatMap((t) => t.operations).find((o) => o.path === "/api/health")?.public).toBe(true);
    expect(view.schemas.length).toBeGreaterThan(0);
  });

  it("names a parameter's type briefly", () => {
    expect(typeLabel({ type: "string" })).toBe("string");
    expect(typeLabel({ type: "array", items: { type: "integer" } })).toBe("integer[]");
    expect(typeLabel({ enum: ["a", "b"] })).toBe('"a" | "b"');
    expect(typeLabel({ $ref: "#/components/schemas/Thing" })).toBe("Thing");
    expect(typeLabel({ anyOf: [{ type: "string" }, { type: "null" }] })).toBe("string | null");
    expect(typeLabel({})).toBe("any");
  });

  it("refuses a document of another shape", () => {
    expect(() => referenceView({ paths: {} })).toThrow();
  });
});
