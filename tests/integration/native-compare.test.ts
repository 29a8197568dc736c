// Our GEOS (wasm 3.13) against native GEOS (Debian's shapely 1.8 / libgeos 3.11) on the corpus cases both can
// build. shapely missing is a FAILURE, not a skip: CI installs python3-shapely, and a silently skipped
// comparison would let the repair drift from the reference unnoticed.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { RepairMethod } from "@/lib/vocabulary/record";
import { analyzeGeometry } from "@/lib/spatial/analyze";
import { CORPUS_PATH, loadCorpus } from "@/lib/spatial/corpus";
import { getGeos, type Geos } from "@/lib/spatial/geos";
import { geosArea, withGeos } from "@/lib/spatial/geos-io";
import { parseGeometry, type Geometry } from "@/lib/spatial/geojson";

const PYTHON = process.env.REDRIVE_PYTHON ?? "/usr/bin/python3";
const SCRIPT = fileURLToPath(new URL("../../scripts/shapely_make_valid.py", import.meta.url));

interface NativeRepair {
  type?: string;
  area?: number;
  valid?: boolean;
  empty?: boolean;
  error?: string;
}
type NativeResult =
  | { ok: true; valid: boolean; reason: string; type: string; area: number; linework: NativeRepair; structure?: NativeRepair }
  | { ok: false; error: string };

function runNative(): NativeResult[] {
  const run = spawnSync(PYTHON, [SCRIPT, CORPUS_PATH], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.error) {
    throw new Error(`cannot run ${PYTHON} (${run.error.message}): install python3 and python3-shapely (apt), or set REDRIVE_PYTHON`);
  }
  if (run.status !== 0) {
    throw new Error(`${PYTHON} ${SCRIPT} exited ${run.status}: ${run.stderr.trim()} — install python3-shapely (apt) or set REDRIVE_PYTHON`);
  }
  return run.stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as NativeResult);
}

/** GEOS 3.11 and 3.13 may report a ring's self-intersection as "Ring Self-intersection" or "Self-intersection". */
const keyword = (nativeReason: string): string =>
  nativeReason
    .split("[")[0]!
    .replace(/^Ring /, "")
    .trim()
    .toLowerCase();

/** Cases where GEOS 3.13's IsValidOp reports a different (equally true) first error than native GEOS 3.11. */
const REASON_DIFFERS_BY_GEOS_VERSION: Record<string, string> = {
  "holes touching": "3.11: Interior is disconnected; 3.13: Self-intersection (the touching holes also cross)",
};

function expectSameArea(ours: number, native: number): void {
  const scale = Math.max(Math.abs(native), 1e-300);
  if (native === 0) expect(Math.abs(ours)).toBeLessThan(1e-12);
  else expect(Math.abs(ours - native) / scale).toBeLessThan(1e-9);
}

let geos: Geos;
let nativeResults: NativeResult[] | Error;
const corpus = loadCorpus();

beforeAll(async () => {
  geos = await getGeos();
  try {
    nativeResults = runNative();
  } catch (error) {
    nativeResults = error instanceof Error ? error : new Error(String(error));
  }
});

/** The native results; every test fails with the same clear message when they could not be produced. */
function native(): NativeResult[] {
  if (nativeResults instanceof Error) throw nativeResults;
  return nativeResults;
}

function areaOf(geometry: Geometry | null): number {
  if (!geometry) return NaN;
  const parsed = parseGeometry(geometry);
  if (!parsed.ok) throw new Error(parsed.reason);
  return withGeos(geos, parsed.geometry, (g) => geosArea(geos, g));
}

describe("native GEOS comparison (shapely via /usr/bin/python3)", () => {
  it("native reference ran on every corpus line", () => {
    expect(native()).toHaveLength(corpus.length);
  });

  const compared = corpus.map((c, i) => [c.name, i] as const).filter(([, i]) => corpus[i]!.native_compare);

  it("compares at least 40 cases", () => {
    expect(compared.length).toBeGreaterThanOrEqual(40);
  });

  for (const method of ["linework", "structure"] as RepairMethod[]) {
    it.each(compared)(`${method}: %s`, (_name, i) => {
      const c = corpus[i]!;
      const n = native()[i]!;
      if (!n.ok) throw new Error(`native GEOS could not build a native_compare case: ${n.error}`);
      const { analysis, repaired } = analyzeGeometry(geos, c.geometry, { method, policy: "accept" });
      const ownFirst = analysis.reason?.startsWith("Unclosed ring") ?? false; // shapely closes rings silently
      if (!ownFirst) expect(analysis.valid_before).toBe(n.valid);
      if (n.valid) {
        // Valid natively (possibly after shapely's implicit ring closing): ours is valid or only closed the ring.
        expect(analysis.outcome).toBe(ownFirst ? "repaired" : "valid");
        expect(repaired?.type).toBe(n.type);
        expectSameArea(areaOf(repaired), n.area);
        return;
      }
      if (!(c.name in REASON_DIFFERS_BY_GEOS_VERSION)) expect(analysis.reason?.toLowerCase()).toContain(keyword(n.reason));
      const ref = method === "linework" ? n.linework : n.structure;
      if (!ref || ref.error) throw new Error(`native ${method} repair failed: ${ref?.error ?? "not available"}`);
      if (ref.empty) {
        expect(analysis.outcome).toBe("dropped");
        return;
      }
      expect(analysis.outcome).toBe("repaired");
      expectSameArea(analysis.area_after ?? NaN, ref.area ?? NaN);
      // An invalid native result (GeometryFixer on RT 7.1/15) is where our second pass differs on purpose.
      if (ref.valid) expect(analysis.type_after).toBe(ref.type);
    });
  }
});
