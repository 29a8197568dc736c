// npm run bench:repair — validate + repair throughput of lib/spatial (GEOS 3.13 as WebAssembly) against native
// GEOS (Debian's shapely 1.8 / libgeos 3.11 via /usr/bin/python3) on the SAME inputs: both sides read one temp
// NDJSON file, build every geometry first, then time validity-with-reason over all and make_valid over the
// invalid ones, excluding process start-up and parsing. Each side takes the best of several rounds after a
// warm-up, and the native and wasm runs alternate, because the bench machine is shared: CPU time (process
// user+sys) is the primary figure, wall time is shown beside it.
// Then: end-to-end analyzeGeometry records/s, the share of invalid inputs that end valid or explicitly dropped,
// and used wasm heap before/after 100k analyses (leak check).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RepairMethod } from "../lib/vocabulary/record";
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
const ALTERNATIONS = 2;
const METHODS: RepairMethod[] = ["linework", "structure"];
type Phase = "validate" | "linework" | "structure";

interface Timing {
  wall_s: number;
  cpu_s: number;
}
type Timings = Record<Phase, Timing> & { geometries: number; invalid: number };

/** The corpus cases native GEOS can build (shapely closes rings itself; inspectStructure does so for us). */
const comparable = (): Geometry[] =>
  loadCorpus()
    .filter((c) => c.native_compare)
    .map((c) => c.geometry as Geometry);

/** What a dead-letter queue mostly holds: small features, a minority invalid (~25 % here). */
function typicalMix(): Geometry[] {
  const out: Geometry[] = [];
  for (let r = 0; r < 10; r++) out.push(...comparable());
  for (let i = 0; i < 4000; i++) {
    const n = 5 + ((i * 37) % 60);
    out.push(noisyPolygon(n, i % 7 === 0 ? 1 : 0, 1000 + i, -170 + ((i * 7.3) % 340), -80 + ((i * 3.1) % 160), 0.001));
  }
  return out;
}

/** A stress mix: the corpus ×40 and 2,000 polygons of 16-415 vertices, 40 % with 1-3 self-intersections. */
function heavyMix(): Geometry[] {
  const out: Geometry[] = [];
  for (let r = 0; r < 40; r++) out.push(...comparable());
  for (let i = 0; i < 2000; i++) {
    const n = 16 + ((i * 37) % 400);
    const swaps = i % 5 < 3 ? 0 : 1 + (i % 3);
    out.push(noisyPolygon(n, swaps, 5000 + i, -170 + ((i * 7.3) % 340), -80 + ((i * 3.1) % 160), 0.01));
  }
  return out;
}

function measure(fn: () => void): Timing {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const cpu = process.cpuUsage(cpu0);
  return { wall_s: (performance.now() - t0) / 1000, cpu_s: (cpu.user + cpu.system) / 1e6 };
}

function bestOf(fn: () => void, rounds = ROUNDS): Timing {
  fn(); // warm-up: V8 tiers the wasm up from Liftoff to TurboFan while it runs
  const runs = Array.from({ length: rounds }, () => measure(fn));
  return { wall_s: Math.min(...runs.map((r) => r.wall_s)), cpu_s: Math.min(...runs.map((r) => r.cpu_s)) };
}

/** Our side, on pre-built GEOS geometries: the same three phases as the Python --bench. */
function benchOurs(geos: Geos, inputs: Geometry[]): Timings {
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
      validate: bestOf(() => pointers.forEach((g) => geosValidity(geos, g))),
      linework: bestOf(repairAll("linework")),
      structure: bestOf(repairAll("structure")),
    };
  } finally {
    for (const g of pointers) geos.destroy(g);
  }
}

function benchNative(file: string): Timings & { versions: Record<string, string | boolean> } {
  const run = spawnSync(PYTHON, [NATIVE_SCRIPT, "--bench", file, `--repeat=${ROUNDS}`], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (run.error || run.status !== 0) {
    throw new Error(
      `native GEOS bench failed (${PYTHON}): ${run.error?.message ?? run.stderr.trim()}\n` +
        "install python3-shapely (apt) or set REDRIVE_PYTHON to a python with shapely",
    );
  }
  return JSON.parse(run.stdout) as Timings & { versions: Record<string, string | boolean> };
}

const better = (a: Timing, b: Timing): Timing => ({ wall_s: Math.min(a.wall_s, b.wall_s), cpu_s: Math.min(a.cpu_s, b.cpu_s) });
const merge = (a: Timings | null, b: Timings): Timings =>
  a
    ? {
        ...b,
        validate: better(a.validate, b.validate),
        linework: better(a.linework, b.linework),
        structure: better(a.structure, b.structure),
      }
    : b;

const ms = (s: number): string => `${(s * 1000).toFixed(0)} ms`;
const pad = (s: string, n: number): string => s.padEnd(n);
const padL = (s: string, n: number): string => s.padStart(n);
const sum = (t: Timings, key: keyof Timing): number => t.validate[key] + t.linework[key];

function row(label: string, ours: Timing, native: Timing): string {
  return (
    `  ${pad(label, 30)}${padL(ms(ours.cpu_s), 10)}${padL(ms(native.cpu_s), 10)}${padL(`${(ours.cpu_s / native.cpu_s).toFixed(2)}×`, 8)}` +
    `   ${padL(ms(ours.wall_s), 9)}${padL(ms(native.wall_s), 9)}${padL(`${(ours.wall_s / native.wall_s).toFixed(2)}×`, 8)}`
  );
}

/** Alternates native and wasm runs on one input file; returns [ours, native] CPU seconds of validate + linework. */
function compare(geos: Geos, dir: string, title: string, inputs: Geometry[]): [number, number] {
  const file = join(dir, `${title.replace(/\W+/g, "-")}.ndjson`);
  writeFileSync(file, inputs.map((g) => JSON.stringify(g)).join("\n") + "\n");
  let ours: Timings | null = null;
  let native: Timings | null = null;
  for (let i = 0; i < ALTERNATIONS; i++) {
    native = merge(native, benchNative(file));
    ours = merge(ours, benchOurs(geos, inputs));
  }
  const o = ours!,
    n = native!;
  console.log(`\n${title}: ${o.geometries} geometries, ${o.invalid} invalid (native: ${n.invalid})`);
  console.log(
    `  ${pad("phase", 30)}${padL("wasm cpu", 10)}${padL("native", 10)}${padL("ratio", 8)}   ${padL("wall", 9)}${padL("native", 9)}${padL("ratio", 8)}`,
  );
  console.log(row("validate (with reason)", o.validate, n.validate));
  console.log(row("make_valid linework (invalid)", o.linework, n.linework));
  console.log(row("make_valid structure (invalid)", o.structure, n.structure));
  const total = (t: Timings): Timing => ({ wall_s: sum(t, "wall_s"), cpu_s: sum(t, "cpu_s") });
  console.log(row("validate + linework", total(o), total(n)));
  console.log(
    `  ${pad("geometries/s (validate+linework)", 30)}${padL((o.geometries / sum(o, "cpu_s")).toFixed(0), 10)}${padL((n.geometries / sum(n, "cpu_s")).toFixed(0), 10)}`,
  );
  return [sum(o, "cpu_s"), sum(n, "cpu_s")];
}

function endToEnd(geos: Geos, label: string, inputs: unknown[]): void {
  for (const method of METHODS) {
    const t = bestOf(() => inputs.forEach((g) => analyzeGeometry(geos, g, { method, policy: "accept" })), 2);
    console.log(
      `  ${pad(label, 42)}${pad(method, 10)}${padL((inputs.length / t.wall_s).toFixed(0), 7)} records/s wall` +
        `  ${padL((inputs.length / t.cpu_s).toFixed(0), 7)} /s cpu  (${inputs.length} records)`,
    );
  }
}

/** Of the inputs that are not valid as given: how many end valid (re-checked from the output GeoJSON) or dropped. */
function outcomes(geos: Geos, inputs: { geometry: unknown; crs?: string }[]): void {
  console.log(`\nInvalid inputs that end valid or explicitly dropped (policy accept; ${inputs.length} distinct inputs)`);
  for (const method of METHODS) {
    let invalid = 0,
      endedValid = 0,
      dropped = 0;
    for (const { geometry, crs } of inputs) {
      const { analysis, repaired } = analyzeGeometry(geos, geometry, { method, policy: "accept", crs });
      if (analysis.outcome === "valid") continue;
      invalid++;
      if (analysis.outcome === "dropped" && analysis.drop_reason) dropped++;
      if (analysis.outcome !== "repaired" || !repaired) continue;
      const reread = parseGeometry(JSON.parse(JSON.stringify(repaired)));
      if (reread.ok && withGeos(geos, reread.geometry, (p) => geosValidity(geos, p).valid)) endedValid++;
    }
    const pct = (k: number): string => `${((100 * k) / invalid).toFixed(1)} %`;
    console.log(
      `  ${pad(method, 10)}${invalid} invalid → ${endedValid} valid + ${dropped} dropped with a reason = ${pct(endedValid + dropped)}` +
        `  (repaired ${pct(endedValid)})`,
    );
  }
}

function leakCheck(geos: Geos, inputs: Geometry[]): void {
  const calls = 100_000;
  const before = geos.usedHeapBytes();
  for (let i = 0; i < calls; i++) analyzeGeometry(geos, inputs[i % inputs.length], { method: METHODS[i % 2]!, policy: "accept" });
  const after = geos.usedHeapBytes();
  const mib = (b: number): string => `${(b / 2 ** 20).toFixed(2)} MiB`;
  console.log(
    `\nMemory: used wasm heap ${mib(before)} → ${mib(after)} after ${calls} analyses (${after - before} bytes);` +
      ` heap size ${mib(geos.heapBytes())}, Node RSS ${mib(process.memoryUsage().rss)}`,
  );
}

async function main(): Promise<void> {
  const geos = await getGeos();
  const typical = typicalMix();
  const heavy = heavyMix();
  const big = noisyPolygon(100_000, 25);
  const v = JSON.parse(spawnSync(PYTHON, [NATIVE_SCRIPT, "--versions"], { encoding: "utf8" }).stdout || "{}") as Record<string, string>;
  console.log(`Native: shapely ${v.shapely}, GEOS ${v.geos} (structure method via ctypes: ${v.structure_method}), Python ${v.python}`);
  console.log(
    `Wasm:   geos-wasm (GEOS 3.13), Node ${process.versions.node}. Best of ${ROUNDS} rounds after a warm-up, ` +
      `${ALTERNATIONS} alternations. Load average at start: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
  );
  const dir = mkdtempSync(join(tmpdir(), "bench-repair-"));
  let ours = 0,
    native = 0;
  try {
    for (const [title, inputs] of [
      ["Typical mix", typical],
      ["Heavy mix", heavy],
      ["One 100,000-vertex polygon", [big]],
    ] as [string, Geometry[]][]) {
      const [o, n] = compare(geos, dir, title, inputs);
      ours += o;
      native += n;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\nAll three, validate + make_valid linework, CPU: wasm ${ms(ours)} vs native ${ms(native)} = ${(ours / native).toFixed(2)}× (goal ≤ 1.5×)`,
  );

  console.log("\nEnd to end: analyzeGeometry (parse, CRS, own checks, validity, repair, policy accept, GeoJSON out)");
  endToEnd(geos, "typical mix", typical);
  endToEnd(geos, "typical mix ×2 + one 100k-vertex polygon", [...typical, ...typical, big]);
  endToEnd(geos, "heavy mix", heavy);

  const corpus = loadCorpus();
  outcomes(geos, [
    ...corpus,
    ...typical.slice(-4000).map((geometry) => ({ geometry })),
    ...heavy.slice(-2000).map((geometry) => ({ geometry })),
    { geometry: big },
  ]);
  leakCheck(geos, typical);
  console.log(
    `Load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
}

await main();
