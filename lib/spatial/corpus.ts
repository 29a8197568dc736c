// Loader for tests/fixtures/geometry/corpus.ndjson (written by scripts/geometry-corpus.py), shared by the corpus
// tests and scripts/bench-repair.ts. Test-support only; nothing in the app imports it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RepairMethod } from "@/lib/vocabulary/record";

export interface CorpusCase {
  name: string;
  source: string;
  /** JSON.parse turns the fixture's 1e999 into Infinity, which is the point of those cases */
  geometry: unknown;
  crs?: string;
  expect: {
    valid_before: boolean | null;
    reason: string | null;
    outcome: Record<RepairMethod, "valid" | "repaired" | "dropped">;
  };
  native_compare: boolean;
}

export const CORPUS_PATH = fileURLToPath(new URL("../../tests/fixtures/geometry/corpus.ndjson", import.meta.url));

export function readCorpusLines(): string[] {
  return readFileSync(CORPUS_PATH, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
}

export function loadCorpus(): CorpusCase[] {
  return readCorpusLines().map((line) => JSON.parse(line) as CorpusCase);
}

/** Small deterministic PRNG (mulberry32), so generated inputs are identical across runs and languages' timings. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A coastline-like polygon of n vertices around (cx, cy): a 7-lobed star with radial noise about one vertex
 * spacing, and `swaps` pairs of neighbouring vertices exchanged, each making a small self-intersection.
 * (A star with deep spikes instead makes GEOS's noding quadratic — 26 s for isValid at 100k vertices, native
 * too — which measures the shape, not the library.)
 */
export function noisyPolygon(
  n: number,
  swaps: number,
  seed = 42,
  cx = 10,
  cy = 20,
  scale = 1,
): { type: "Polygon"; coordinates: number[][][] } {
  const rnd = random(seed);
  const step = (2 * Math.PI) / n;
  const ring: number[][] = [];
  for (let i = 0; i < n; i++) {
    const a = i * step;
    const r = scale * (1 + 0.2 * Math.sin(7 * a) + step * (2 * rnd() - 1));
    ring.push([cx + Math.cos(a) * r, cy + Math.sin(a) * r]);
  }
  for (let k = 1; k <= swaps; k++) {
    const i = Math.floor((k * n) / (swaps + 1));
    [ring[i], ring[i + 1]] = [ring[i + 1]!, ring[i]!];
  }
  ring.push(ring[0]!.slice());
  return { type: "Polygon", coordinates: [ring] };
}
