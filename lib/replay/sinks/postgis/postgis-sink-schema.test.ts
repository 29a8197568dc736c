import { describe, expect, it } from "vitest";
import { parseTableName, PostgisSinkSchema } from "./postgis-sink-schema";

describe("parseTableName", () => {
  it("reads names as SQL does: unquoted parts fold to lower case, quoted parts keep case, dots and quotes", () => {
    expect(parseTableName("features")).toEqual({ schema: null, table: "features" });
    expect(parseTableName("GIS.Features")).toEqual({ schema: "gis", table: "features" });
    expect(parseTableName('"GIS"."Road.Segments"')).toEqual({ schema: "GIS", table: "Road.Segments" });
    expect(parseTableName('gis."say ""hi"""')).toEqual({ schema: "gis", table: 'say "hi"' });
  });

  it("refuses what is not one or two names", () => {
    for (const bad of ["", "a.b.c", "a.", ".a", '"unterminated', '""', "a b", "a;drop table x", "1abc", `${"x".repeat(64)}`]) {
      expect(parseTableName(bad), bad).toBeNull();
    }
  });
});

describe("PostgisSinkSchema", () => {
  const ok = {
    type: "postgis",
    url: "postgresql://writer:secret@db.example:5432/gis",
    table: "gis.features",
    idColumn: "id",
    geometryColumn: "geom",
    observedAtColumn: "observed_at",
  };

  it("takes the issue's shape; srid defaults to 4326", () => {
    expect(PostgisSinkSchema.parse(ok)).toMatchObject({ srid: 4326 });
  });

  it("names the field that is wrong", () => {
    const path = (v: unknown) => PostgisSinkSchema.safeParse(v).error?.issues[0]?.path.join(".");
    expect(path({ ...ok, url: "https://db.example/gis" })).toBe("url");
    expect(path({ ...ok, table: "a.b.c" })).toBe("table");
    expect(path({ ...ok, idColumn: "" })).toBe("idColumn");
    expect(path({ ...ok, srid: 4326.5 })).toBe("srid");
    expect(path({ ...ok, extra: 1 })).toBe("");
  });
});
