import { readFileSync } from "node:fs";
import { feature } from "topojson-client";
import { prepareBasemap } from "../lib/spatial/display";
const topo = JSON.parse(readFileSync("node_modules/world-atlas/countries-110m.json", "utf8"));
const fc = feature(topo, topo.objects.countries);
const raw = fc.features;
const land = prepareBasemap(fc);
land.features.forEach((f, i) => {
  const polys = f.geometry.type === "Polygon" ? [f.geometry.coordinates] : f.geometry.coordinates;
  polys.forEach((poly, j) => poly.forEach((ring, k) => {
    const xs = ring.map((p) => p[0]);
    const span = Math.max(...xs) - Math.min(...xs);
    if (span > 200) {
      console.log(raw[i].properties.name, j, k, span, ring.length);
      const rawPolys = raw[i].geometry.type === "Polygon" ? [raw[i].geometry.coordinates] : raw[i].geometry.coordinates;
      const r = rawPolys[j][k];
      for (let t = 1; t < r.length; t++) if (Math.abs(r[t][0]-r[t-1][0]) > 180) console.log("  jump", r[t-1], r[t]);
      console.log("  first", r.slice(0,3), "min", Math.min(...xs), "max", Math.max(...xs));
    }
  }));
});
