import { describe, expect, it } from "vitest";
import { SinkSchema, sinkPlug } from "@/lib/replay/sinks/registry";
import { initialSinkInputs, sinkBodyOf } from "./sink-form";

// The replay form's sink settings: what each registered sink's fields send as typed.

describe("the sink body the replay form sends", () => {
  const initial = initialSinkInputs();

  it("sends a sink without settings as its type alone", () => {
    expect(sinkBodyOf(sinkPlug("ledger"), initial)).toEqual({ sink: { type: "ledger" }, problems: [] });
    expect(sinkBodyOf(sinkPlug("origin"), initial)).toEqual({ sink: { type: "origin" }, problems: [] });
  });

  it("reads the HTTP sink's header lines, naming a line that is not one", () => {
    const inputs = { ...initial, "http.url": "https://down.example/in", "http.headers": "X-Team: gis\n\nAuthorization: Bearer a:b" };
    const { sink, problems } = sinkBodyOf(sinkPlug("http"), inputs);
    expect(sink).toEqual({
      type: "http",
      url: "https://down.example/in",
      headers: { "X-Team": "gis", Authorization: "Bearer a:b" },
      timeoutMs: 10_000,
      concurrency: 4,
    });
    expect(problems).toEqual([]);
    expect(SinkSchema.safeParse(sink).success).toBe(true);

    const bad = sinkBodyOf(sinkPlug("http"), { ...inputs, "http.headers": "X-Team: gis\nno colon" });
    expect(bad.problems).toEqual(['sink.headers: line 2 is not "Name: value"']);
    expect(bad.sink.headers).toEqual({ "X-Team": "gis" });
  });

  it("sends the PostGIS sink's defaults, leaves blank optional columns out and a blank number for the schema to name", () => {
    const inputs = {
      ...initial,
      "postgis.url": "postgresql://w:p@db:5432/gis",
      "postgis.table": "public.roads",
      "postgis.idProperty": "  ",
    };
    const { sink } = sinkBodyOf(sinkPlug("postgis"), inputs);
    expect(sink).toEqual({
      type: "postgis",
      url: "postgresql://w:p@db:5432/gis",
      table: "public.roads",
      srid: 4326,
      idColumn: "id",
      geometryColumn: "geom",
      observedAtColumn: "observed_at",
    });
    expect(SinkSchema.safeParse(sink).success).toBe(true);
    const blankTimeout = sinkBodyOf(sinkPlug("http"), { ...initial, "http.url": "https://down.example/in", "http.timeoutMs": "" });
    expect(SinkSchema.safeParse(blankTimeout.sink).error?.issues[0]?.path).toEqual(["timeoutMs"]);
  });
});
