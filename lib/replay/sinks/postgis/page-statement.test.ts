import { describe, expect, it } from "vitest";
import { featureId, pageStatement } from "./page-statement";

describe("featureId", () => {
  it("is the Feature's id, else the configured property, else null", () => {
    expect(featureId({ type: "Feature", id: "a", properties: { fid: "b" } }, "fid")).toBe("a");
    expect(featureId({ type: "Feature", id: 7, properties: {} }, undefined)).toBe("7");
    expect(featureId({ type: "Feature", properties: { fid: "b" } }, "fid")).toBe("b");
    expect(featureId({ type: "Feature", id: "", properties: { fid: 3 } }, "fid")).toBe("3");
    expect(featureId({ type: "Feature", properties: { fid: { nested: 1 } } }, "fid")).toBeNull();
    expect(featureId({ type: "Feature", properties: null }, undefined)).toBeNull();
  });
});

describe("pageStatement", () => {
  it("quotes every name and keeps values out of the text", () => {
    const sql = pageStatement({
      table: 'gis."Odd ""name"""',
      schema: "gis",
      tableName: 'Odd "name"',
      keyTable: "redrive_applied_key",
      idColumn: "Feature Id",
      geometryColumn: "geom",
      observedAtColumn: "seen",
      propertiesColumn: "props",
      srid: 4326,
      types: { id: "bigint", observedAt: "timestamp with time zone", properties: "jsonb" },
    });
    expect(sql).toContain('INSERT INTO "gis"."Odd ""name""" AS t ("Feature Id", "geom", "seen", "props")');
    expect(sql).toContain('ON CONFLICT ("Feature Id") DO UPDATE');
    expect(sql).toContain('WHERE t."seen" IS NULL OR t."seen" < EXCLUDED."seen"');
    expect(sql).toContain("w.fid::bigint");
    expect(sql).toContain('INSERT INTO "gis"."redrive_applied_key"');
    expect(sql).toContain("jsonb_to_recordset($1::jsonb)");
  });

  it("leaves the properties out when no column takes them", () => {
    const sql = pageStatement({
      table: "features",
      schema: "public",
      tableName: "features",
      keyTable: "redrive_applied_key",
      idColumn: "id",
      geometryColumn: "geom",
      observedAtColumn: "seen",
      srid: 4326,
      types: { id: "text", observedAt: "timestamp without time zone", properties: null },
    });
    expect(sql).toContain('("id", "geom", "seen")');
    expect(sql).not.toContain("w.props::");
  });
});
