// Every GEOS pointer analyzeGeometry allocates must be freed. The wasm heap only grows and hides small leaks in
// its free space, so used memory is measured directly (Geos.usedHeapBytes). The bound is small enough to catch a
// leak of one GEOS Point per invalid geometry (not destroying GEOSisValidDetail's location).
import { beforeAll, describe, expect, it } from "vitest";
import type { RepairMethod, RepairPolicy } from "@/lib/vocabulary/record";
import { analyzeGeometry } from "./analyze";
import { loadCorpus } from "./corpus";
import { getGeos, type Geos } from "./geos";

const corpus = loadCorpus();
let geos: Geos;
beforeAll(async () => {
  geos = await getGeos();
});

function pass(): void {
  for (const method of ["linework", "structure"] as RepairMethod[]) {
    for (const policy of ["accept", "largest-part", "drop"] as RepairPolicy[]) {
      for (const c of corpus) analyzeGeometry(geos, c.geometry, { method, policy, crs: c.crs });
    }
  }
}

describe("GEOS memory", () => {
  it("frees every GEOS allocation (used heap stable over ~16k analyses)", () => {
    pass();
    const before = geos.usedHeapBytes();
    for (let i = 0; i < 35; i++) pass();
    const leaked = geos.usedHeapBytes() - before;
    // The fill is measured in 64 KiB steps.
    expect(leaked).toBeLessThanOrEqual(64 * 1024);
  }, 60_000);
});
