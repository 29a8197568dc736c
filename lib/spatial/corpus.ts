// Loader for tests/fixtures/geometry/corpus.ndjson (written by scripts/geometry-corpus.py), shared by the corpus
// tests and scripts/bench-repair.ts. Test-support only; nothing in the app imports it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RepairMethod } from "@/lib/dead-letters/types";

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
  return readFileSync(CORPUS_PATH, "utf8").split("\n").filter((line) => line.trim() !== "");
}

export function loadCorpus(): CorpusCase[] {
  return readCorpusLines().map((line) => JSON.parse(line) as CorpusCase);
}
