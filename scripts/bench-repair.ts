// npm run bench:repair — validate + repair throughput of lib/spatial (GEOS 3.13 as WebAssembly) against native
// GEOS (Debian's shapely 1.8 / libgeos 3.11 via /usr/bin/python3) on the SAME inputs: both sides read one temp
// NDJSON file, build all geometries first, then time validity (with reason) and make_valid of the invalid ones,
// excluding process start-up and parsing. Best of 3 timed rounds after an untimed warm-up (V8 tiers wasm up).
// Then: end-to-end analyzeGeometry records/s, the share of invalid inputs that end valid or explicitly dropped,
// and used wasm heap before/after 100k analyses (leak check).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RepairMethod } from "../lib/dead-letters/types";
import { analyzeGeometry } from "../lib/spatial/analyze";
import { loadCorpus, noisyPolygon } from "../lib/spatial/corpus";
import { getGeos, type Geos } from "../lib/spatial/geos";
import { toGeos, withGeos } from "../lib/spatial/geos-io";
import { parseGeometry, type Geometry } from "../lib/spatial/geojson";
import { makeValid } from "../lib/spatial/repair";
import { geosValidity, inspectStructure } from "../lib/spatial/validate";

const PYTHON = process.env.REDRIVE_PYTHON ?? "/usr/bin/python3";
const NATIVE_SCRIPT = fileURLToPath(new URL("./shapely_make_valid.py", import.meta.url));
const ROUNDS = 3;
const METHODS: RepairMethod[] = ["linework", "structure"];

interface NativeBench {
  geometries: number;
  invalid: number;
  parse_s: number;
  validate_s: number;
  make_valid_linework_s: number;
  make_valid_structure_s: number | null;
  versions: Record<string, string | boolean>;
}

interface Phases {
  geometries: number;
  invalid: number;
  validate: number;
  linework: number;
  structure: number;
}

/** Mixed inputs: the corpus cases native GEOS can build, repeated, plus generated coastline-like polygons. */
function smallInputs(): Geometry[] {
  const comparable = loadCorpus().filter((c) => c.native_compare).map((c) => c.geometry as Geometry);
  const out: Geometry[] = [];
  for (let r = 0; r < 40; r++) out.push(...comparable);
  for (let i = 0; i < 2000; i++) {
    const n = 16 + ((i * 37) % 400);
    const swaps = i % 5 < 3 ? 0 : 1 + (i % 3); // 60 % valid, 40 % with 1-3 small self-intersections
    out.push(noisyPolygon(n, swaps, 1000 + i, -170 + ((i * 7.3) % 340), -80 + ((i * 3.1) % 160), 0.01));
  }
  return out;
}

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return (performance.now() - t0) / 1000;
}

function bestOf(fn: () => void): number {
  fn(); // warm-up: let V8 tier the wasm up before timing
  return Math.min(...Array.from({ length: ROUNDS }, () => time(fn)));
}

/** Our side of the comparison on pre-built GEOS geometries, the same phases as the Python --bench. */
function benchOurs(geos: Geos, inputs: Geometry[]): Phases {
  // inspectStructure closes unclosed rings, as shapely's shape() does on the native side.
  const pointers = inputs.map((g) => toGeos(geos, inspectStructure(g).geometry));
  try {
    const invalid = pointers.filter((g) => !geosValidity(geos, g).valid);
    const repairAll = (method: RepairMethod) => () => {
      for (const g of invalid) {
        const result = makeValid(geos, g, method);
        if (result.ok) geos.destroy(result.g);
      }
    };
    return {
      geometries: pointers.length,
      invalid: invalid.length,
      validate: bestOf(() => {
        for (const g of pointers) geosValidity(geos, g);
      }),
      linework: bestOf(repairAll("linework")),
      structure: bestOf(repairAll("structure")),
    };
  } finally {
    for (const g of pointers) geos.destroy(g);
  }
}

function benchNative(file: string): NativeBench {
  const run = spawnSync(PYTHON, [NATIVE_SCRIPT, "--bench", file, `--repeat=${ROUNDS}`], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (run.error || run.status !== 0) {
    throw new Error(`native GEOS bench failed (${PYTHON}): ${run.error?.message ?? run.stderr.trim()}\n` +
      "install python3-shapely (apt) or set REDRIVE_PYTHON to a python with shapely");
  }
  return JSON.parse(run.stdout) as NativeBench;
}

const ms = (s: number): string => `${(s * 1000).toFixed(1)} ms`;
const pad = (s: string, n: number): string => s.padEnd(n);
const padL = (s: string, n: number): string => s.padStart(n);

function compareRow(label: string, ours: number, native: number): string {
  return `  ${pad(label, 34)}${padL(ms(ours), 12)}${padL(ms(native), 12)}${padL(`${(ours / native).toFixed(2)}×`, 9)}`;
}

function printComparison(title: string, ours: Phases, native: NativeBench): number {
  console.log(`\n${title}: ${ours.geometries} geometries, ${ours.invalid} invalid (native agrees: ${native.invalid})`);
  console.log(`  ${pad("phase", 34)}${padL("geos-wasm", 12)}${padL("native", 12)}${padL("ratio", 9)}`);
  console.log(compareRow("validate (isValidDetail/Reason)", ours.validate, native.validate_s));
  console.log(compareRow("make_valid linework (invalid only)", ours.linework, native.make_valid_linework_s));
  if (native.make_valid_structure_s !== null) {
    console.log(compareRow("make_valid structure (invalid only)", ours.structure, native.make_valid_structure_s));
  }
  const total = ours.validate + ours.linework;
  const nativeTotal = native.validate_s + native.make_valid_linework_s;
  console.log(compareRow("validate + make_valid linework", total, nativeTotal));
  console.log(`  ${pad("geometries/s (validate + linework)", 34)}${padL((ours.geometries / total).toFixed(0), 12)}${padL((ours.geometries / nativeTotal).toFixed(0), 12)}`);
  return total / nativeTotal;
}

function endToEnd(geos: Geos, label: string, inputs: unknown[], crs: (string | undefined)[]): void {
  for (const method of METHODS) {
    const run = () => inputs.forEach((g, i) => analyzeGeometry(geos, g, { method, policy: "accept", crs: crs[i] }));
    const seconds = bestOf(run);
    console.log(`  ${pad(label, 40)}${pad(method, 11)}${padL((inputs.length / seconds).toFixed(0), 8)} records/s` +
      `  (${inputs.length} records in ${ms(seconds)})`);
  }
}

/** Of the inputs that are not valid as given: how many end valid (re-checked from the output GeoJSON) or dropped. */
function outcomes(geos: Geos, inputs: unknown[], crs: (string | undefined)[]): void {
  console.log("\nInvalid inputs that end valid or explicitly dropped (policy accept; all corpus cases + generated + 100k)");
  for (const method of METHODS) {
    let invalid = 0, endedValid = 0, dropped = 0;
    inputs.forEach((g, i) => {
      const { analysis, repaired } = analyzeGeometry(geos, g, { method, policy: "accept", crs: crs[i] });
      if (analysis.outcome === "valid") return;
      invalid++;
      if (analysis.outcome === "dropped" && analysis.drop_reason) dropped++;
      if (analysis.outcome !== "repaired" || !repaired) return;
      const reread = parseGeometry(JSON.parse(JSON.stringify(repaired)));
      if (reread.ok && withGeos(geos, reread.geometry, (p) => geosValidity(geos, p).valid)) endedValid++;
    });
    const share = (100 * (endedValid + dropped)) / invalid;
    console.log(`  ${pad(method, 12)}${invalid} invalid → ${endedValid} valid, ${dropped} dropped with a reason = ${share.toFixed(1)} %` +
      ` (repaired ${(100 * endedValid / invalid).toFixed(1)} %)`);
  }
}

function leakCheck(geos: Geos, inputs: Geometry[]): void {
  const calls = 100_000;
  const before = geos.usedHeapBytes();
  for (let i = 0; i < calls; i++) {
    analyzeGeometry(geos, inputs[i % inputs.length], { method: METHODS[i % 2]!, policy: "accept" });
  }
  const after = geos.usedHeapBytes();
  console.log(`\nMemory: used wasm heap ${(before / 2 ** 20).toFixed(1)} MiB → ${(after / 2 ** 20).toFixed(1)} MiB after ${calls} analyses` +
    ` (${after - before} bytes; heap size ${(geos.heapBytes() / 2 ** 20).toFixed(0)} MiB)`);
}

async function main(): Promise<void> {
  const geos = await getGeos();
  const small = smallInputs();
  const big = noisyPolygon(100_000, 25);
  const dir = mkdtempSync(join(tmpdir(), "bench-repair-"));
  try {
    const smallFile = join(dir, "small.ndjson");
    const bigFile = join(dir, "big.ndjson");
    writeFileSync(smallFile, small.map((g) => JSON.stringify(g)).join("\n") + "\n");
    writeFileSync(bigFile, `${JSON.stringify(big)}\n`);

    const nativeSmall = benchNative(smallFile);
    const nativeBig = benchNative(bigFile);
    const v = nativeSmall.versions;
    console.log(`Native reference: shapely ${v.shapely}, GEOS ${v.geos} (structure via ctypes: ${v.structure_method}), Python ${v.python}`);
    console.log(`Ours: geos-wasm (GEOS 3.13) on Node ${process.versions.node}; best of ${ROUNDS} rounds after a warm-up, same input files`);

    const oursSmall = benchOurs(geos, small);
    const oursBig = benchOurs(geos, [big]);
    const r1 = printComparison("Mixed corpus (published cases ×40 + 2,000 generated polygons)", oursSmall, nativeSmall);
    const r2 = printComparison("One 100,000-vertex self-intersecting polygon", oursBig, nativeBig);
    const sum = (p: Phases) => p.validate + p.linework;
    const nsum = (n: NativeBench) => n.validate_s + n.make_valid_linework_s;
    const overall = (sum(oursSmall) + sum(oursBig)) / (nsum(nativeSmall) + nsum(nativeBig));
    console.log(`\nRatio to native (validate + make_valid linework): mixed ${r1.toFixed(2)}×, 100k ${r2.toFixed(2)}×, all ${overall.toFixed(2)}× (goal ≤ 1.5×)`);

    const corpus = loadCorpus();
    const all: unknown[] = [...corpus.map((c) => c.geometry), ...small.slice(-2000), big];
    const crs = [...corpus.map((c) => c.crs), ...Array<undefined>(2001).fill(undefined)];
    console.log("\nEnd to end: analyzeGeometry (parse, CRS, own checks, GEOS validity, repair, policy accept, GeoJSON out)");
    const mixed = [...corpus.map((c) => c.geometry), ...small, ...small];
    const mixedCrs = [...corpus.map((c) => c.crs), ...small.map(() => undefined), ...small.map(() => undefined)];
    endToEnd(geos, "all corpus cases + mixed ×2", mixed, mixedCrs);
    endToEnd(geos, "the same + one 100k-vertex polygon", [...mixed, big], [...mixedCrs, undefined]);
    outcomes(geos, all, crs);
    leakCheck(geos, small);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
