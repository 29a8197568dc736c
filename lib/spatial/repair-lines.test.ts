import { PassThrough, Readable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { runGeometryRepair } from "@/lib/cli/commands/geometry";
import { getGeos, type Geos } from "./geos";
import { repairLine } from "./repair-lines";

let geos: Geos;
beforeAll(async () => {
  geos = await getGeos();
});

const bowtie = '{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}';
const KEYS = ["valid_before", "reason", "location", "outcome", "valid_after", "type_changed", "geometry", "drop_reason"];

describe("repairLine", () => {
  it("prints exactly the contract's keys, in order", () => {
    const result = repairLine(geos, bowtie, 1, { method: "linework", policy: "accept" });
    expect(result.ok).toBe(true);
    expect(Object.keys(result.output)).toEqual(KEYS);
    expect(JSON.stringify(result.output)).toBe(
      '{"valid_before":false,"reason":"Self-intersection at or near point (0.5, 0.5)","location":[0.5,0.5],' +
        '"outcome":"repaired","valid_after":true,"type_changed":true,"geometry":{"type":"MultiPolygon","coordinates":' +
        // shapely: MULTIPOLYGON (((0 1, 0.5 0.5, 0 0, 0 1)), ((1 0, 0.5 0.5, 1 1, 1 0))), each ring reversed to run
        // counter-clockwise as RFC 7946 §3.1.6 asks of GeoJSON written
        '[[[[0,1],[0,0],[0.5,0.5],[0,1]]],[[[1,0],[1,1],[0.5,0.5],[1,0]]]]},"drop_reason":null}',
    );
  });

  it("takes the geometry of a Feature; a null geometry is a dropped result, not an error", () => {
    const feature = repairLine(geos, `{"type":"Feature","properties":{},"geometry":${bowtie}}`, 1, {
      method: "structure",
      policy: "largest-part",
    });
    expect(feature.output).toMatchObject({ outcome: "repaired", type_changed: true, geometry: { type: "Polygon" } });
    const none = repairLine(geos, '{"type":"Feature","properties":{},"geometry":null}', 2, { method: "linework", policy: "accept" });
    expect(none.output).toEqual({
      valid_before: false,
      reason: "Geometry is null",
      location: null,
      outcome: "dropped",
      valid_after: null,
      type_changed: false,
      geometry: null,
      drop_reason: "Geometry is null",
    });
  });

  it("reads a bare NaN / Infinity coordinate as json.dumps writes it: a result with its own reason, not a bad line", () => {
    const nan = repairLine(geos, '{"type":"Point","coordinates":[NaN,1]}', 1, { method: "linework", policy: "accept" });
    expect(nan).toMatchObject({
      ok: true,
      output: { valid_before: false, outcome: "dropped", reason: expect.stringContaining("Invalid Coordinate (NaN, 1)") },
    });
    const inf = repairLine(geos, '{"type":"Polygon","coordinates":[[[0,0],[1,0],[Infinity,1],[0,1],[0,0]]]}', 2, {
      method: "linework",
      policy: "accept",
    });
    expect(inf.output).toMatchObject({
      outcome: "repaired",
      valid_after: true,
      reason: expect.stringContaining("Invalid Coordinate (Infinity, 1)"),
    });
  });

  it.each([
    ["nope", "not valid JSON"],
    ["[1,2]", "found an array"],
    ['{"type":"FeatureCollection","features":[]}', "one Feature per line"],
    ['{"hello":1}', "type null"],
  ])("reports %s as an error line", (line, message) => {
    const result = repairLine(geos, line, 7, { method: "linework", policy: "accept" });
    expect(result.ok).toBe(false);
    expect(result.output).toEqual({ line: 7, error: expect.stringContaining(message) });
  });
});

describe("runGeometryRepair", () => {
  it("streams one line per non-empty input line, in order, counting failures", async () => {
    const input = Readable.from([`${bowtie}\n\nnot json\n`, '{"type":"Point","coordinates":[1,2]}\n']);
    const output = new PassThrough();
    const chunks: string[] = [];
    output.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
    const result = await runGeometryRepair(input, output, { method: "linework", policy: "drop" });
    const lines = chunks
      .join("")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(result).toEqual({ lines: 3, failed: 1 });
    expect(lines[0]).toMatchObject({ outcome: "dropped", drop_reason: expect.stringContaining('policy "drop"') });
    expect(lines[1]).toEqual({ line: 3, error: expect.stringContaining("not valid JSON") });
    expect(lines[2]).toMatchObject({ valid_before: true, outcome: "valid", geometry: { type: "Point", coordinates: [1, 2] } });
  });

  it("keeps a lone CR inside its line and makes a line that is not UTF-8 an error of its own", async () => {
    const input = Readable.from([
      Buffer.from('{"type":"Point",\r"coordinates":[1,2]}\n{"type":"Point","coordinates":[1,\xff2]}\n', "latin1"),
    ]);
    const output = new PassThrough();
    const chunks: string[] = [];
    output.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
    const result = await runGeometryRepair(input, output, { method: "linework", policy: "accept" });
    const lines = chunks
      .join("")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(result).toEqual({ lines: 2, failed: 1 });
    expect(lines[0]).toMatchObject({ outcome: "valid", geometry: { type: "Point", coordinates: [1, 2] } });
    expect(lines[1]).toEqual({ line: 2, error: expect.stringContaining("not valid UTF-8") });
  });
});
