// Every corpus case through analyzeGeometry with both methods: the reason keyword, the outcome, and that every
// repaired geometry is valid when read back from its GeoJSON (what a consumer of the record would do).
import { beforeAll, describe, expect, it } from "vitest";
import type { RepairMethod } from "@/lib/vocabulary/record";
import { analyzeGeometry } from "./analyze";
import { loadCorpus } from "./corpus";
import { getGeos, type Geos } from "./geos";
import { withGeos } from "./geos-io";
import { parseGeometry } from "./geojson";
import { geosValidity } from "./validate";

const corpus = loadCorpus();
let geos: Geos;
beforeAll(async () => {
  geos = await getGeos();
});

describe("geometry corpus", () => {
  it("has at least 40 cases with unique names", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    expect(new Set(corpus.map((c) => c.name)).size).toBe(corpus.length);
  });

  for (const method of ["linework", "structure"] as RepairMethod[]) {
    describe(method, () => {
      it.each(corpus.map((c) => [c.name, c] as const))("%s", (_name, c) => {
        const { analysis, repaired } = analyzeGeometry(geos, c.geometry, { method, policy: "accept", crs: c.crs });
        expect(analysis.valid_before).toBe(c.expect.valid_before);
        if (c.expect.reason === null) expect(analysis.reason).toBeNull();
        else expect(analysis.reason?.toLowerCase()).toContain(c.expect.reason.toLowerCase());
        expect(analysis.outcome).toBe(c.expect.outcome[method]);
        if (analysis.outcome === "dropped") {
          expect(repaired).toBeNull();
          expect(analysis.drop_reason).toBeTruthy();
          return;
        }
        expect(analysis.valid_after).toBe(true);
        const reread = parseGeometry(JSON.parse(JSON.stringify(repaired)));
        if (!reread.ok) throw new Error(reread.reason);
        expect(withGeos(geos, reread.geometry, (g) => geosValidity(geos, g).valid)).toBe(true);
      });
    });
  }
});
