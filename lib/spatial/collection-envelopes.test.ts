import { describe, expect, it } from "vitest";
import { splitFeatureCollection } from "./collection-envelopes";

describe("splitFeatureCollection", () => {
  it("gives each feature's own text as one line, number lexemes and escapes untouched", () => {
    const a =
      '{"kind":"spatial","observed_at":1.50,"idempotency_key":"k-\\"1\\"","feature":{"type":"Feature","id":1.0e0,"geometry":null,"properties":{"a":[1,{"b":"]"}]}}}';
    const b = '{\n  "kind": "spatial",\r\n  "x": "a,b}"\n}';
    const text = `{"type":"FeatureCollection","name":{"features":[1]},"features":[\n ${a} ,\n${b}\n],"bbox":[0,0,1,1]}`;
    const split = splitFeatureCollection(text);
    expect(split).toEqual({ ok: true, lines: [a, '{   "kind": "spatial",   "x": "a,b}" }'] });
    if (split.ok) for (const line of split.lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it("keeps members that are not objects (ingest rejects each with its index) and an empty collection", () => {
    expect(splitFeatureCollection('{"features":[1, "two", null, []],"type":"FeatureCollection"}')).toEqual({
      ok: true,
      lines: ["1", '"two"', "null", "[]"],
    });
    expect(splitFeatureCollection('{"type":"FeatureCollection","features":[]}')).toEqual({ ok: true, lines: [] });
  });

  it("says what is wrong with anything else", () => {
    expect(splitFeatureCollection('{"type":')).toMatchObject({ ok: false, error: expect.stringMatching(/^not valid JSON/) as string });
    expect(splitFeatureCollection('[{"kind":"spatial"}]')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/FeatureCollection/) as string,
    });
    expect(splitFeatureCollection('{"type":"Feature","features":[]}')).toMatchObject({ ok: false });
    expect(splitFeatureCollection('{"type":"FeatureCollection","features":{}}')).toEqual({
      ok: false,
      error: "features: must be an array of envelopes",
    });
  });
});
