// First-load JavaScript per route from the last `next build` (Next 16 no longer prints the table): raw and
// gzipped bytes of the chunks .next/diagnostics/route-bundle-stats.json lists for each route, and whether
// MapLibre is among them. Run: npx tsx scripts/first-load-js.ts [route…]
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

interface RouteStats {
  route: string;
  firstLoadUncompressedJsBytes: number;
  firstLoadChunkPaths: string[];
}

const stats = JSON.parse(readFileSync(".next/diagnostics/route-bundle-stats.json", "utf8")) as RouteStats[];
const wanted = process.argv.slice(2);
const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
for (const r of stats.filter((s) => wanted.length === 0 || wanted.includes(s.route))) {
  let gz = 0;
  let maplibre = false;
  for (const path of r.firstLoadChunkPaths) {
    const text = readFileSync(path);
    gz += gzipSync(text).length;
    if (text.includes("maplibre-gl-worker") || text.includes("maplibregl-map")) maplibre = true;
  }
  console.log(
    `${r.route.padEnd(28)} ${kb(r.firstLoadUncompressedJsBytes).padStart(10)} raw ${kb(gz).padStart(10)} gzip${maplibre ? "  (includes MapLibre!)" : ""}`,
  );
}
