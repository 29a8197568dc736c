import { sharedNormalizePool } from "../lib/dead-letters/ingest/normalize-pool";
import { geometryLimits } from "../lib/env";
const n = 140000;
const ring: number[][] = [];
for (let i = 0; i <= n; i++) { const a = (2*Math.PI*(i%n))/n; ring.push([Number((5+Math.cos(a)).toFixed(2)), Number((5+Math.sin(a)).toFixed(2))]); }
const pool = sharedNormalizePool()!;
pool.warm();
const t = performance.now();
try {
  const r = await pool.analyze({ type: "Polygon", coordinates: [ring] }, { method: "linework", policy: "accept", crs: "EPSG:4326", limits: geometryLimits() });
  console.log(r.analysis.outcome, performance.now() - t);
} catch (e) { console.log("threw", e); }
await pool.close();
