import { getGeos } from "../lib/spatial/geos";
import { toGeos } from "../lib/spatial/geos-io";
import { noisyPolygon, loadCorpus } from "../lib/spatial/corpus";
import { geosValidity, inspectStructure } from "../lib/spatial/validate";
import { makeValid } from "../lib/spatial/repair";
import type { Geometry } from "../lib/spatial/geojson";
const geos = await getGeos();
const inputs: Geometry[] = [];
const comparable = loadCorpus().filter((c) => c.native_compare).map((c) => c.geometry as Geometry);
for (let r = 0; r < 40; r++) inputs.push(...comparable);
for (let i = 0; i < 2000; i++) { const n = 16 + ((i * 37) % 400); const swaps = i % 5 < 3 ? 0 : 1 + (i % 3); inputs.push(noisyPolygon(n, swaps, 1000 + i, -170 + ((i * 7.3) % 340), -80 + ((i * 3.1) % 160), 0.01)); }
const ptrs = inputs.map((g) => toGeos(geos, inspectStructure(g).geometry));
const invalid = ptrs.filter((g) => !geosValidity(geos, g).valid);
for (let k = 0; k < 10; k++) {
  let t = performance.now(); for (const g of ptrs) geosValidity(geos, g); const tv = performance.now() - t;
  t = performance.now(); for (const g of ptrs) geos.lib.GEOSisValid_r(geos.ctx, g); const tv2 = performance.now() - t;
  t = performance.now(); for (const g of invalid) { const r = makeValid(geos, g, "linework"); if (r.ok) geos.destroy(r.g); } const tm = performance.now() - t;
  console.log(k, tv.toFixed(1), tv2.toFixed(1), tm.toFixed(1));
}
