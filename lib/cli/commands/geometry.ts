// `redrive geometry repair`: NDJSON Features/geometries on stdin → one NDJSON analysis line per input line.
// The per-line logic lives in lib/spatial/repair-lines.ts; this file is only options, streaming and exit codes.
import type { Readable, Writable } from "node:stream";
import { Option, type Command } from "commander";
import type { RepairMethod, RepairPolicy } from "@/lib/vocabulary/record";
import { getGeos } from "@/lib/spatial/geos";
import { repairLine } from "@/lib/spatial/repair-lines";
import { readLines } from "../lines";

const METHODS: readonly RepairMethod[] = ["linework", "structure"];
const POLICIES: readonly RepairPolicy[] = ["accept", "largest-part", "drop"];

export interface GeometryRepairOptions {
  method: RepairMethod;
  policy: RepairPolicy;
}

/**
 * Streams `input` line by line (readline: never the whole input in memory) and writes one JSON line per
 * non-empty input line, in order. Returns the number of lines that were errors. Stops quietly when the reader
 * of `output` goes away (`| head`).
 */
export async function runGeometryRepair(
  input: Readable,
  output: Writable,
  opts: GeometryRepairOptions,
): Promise<{ lines: number; failed: number }> {
  const geos = await getGeos();
  const { lines, close } = readLines(input);
  let readerGone = false;
  const onError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== "EPIPE") throw err;
    readerGone = true;
    close();
  };
  output.on("error", onError);
  let n = 0;
  let written = 0;
  let failed = 0;
  try {
    for await (const line of lines) {
      if (readerGone) break;
      n += 1;
      if (line.error === null && line.text.trim() === "") continue;
      const result =
        line.error === null ? repairLine(geos, line.text, n, opts) : { ok: false as const, output: { line: n, error: line.error } };
      if (!result.ok) failed += 1;
      written += 1;
      await write(output, `${JSON.stringify(result.output)}\n`);
    }
  } finally {
    output.off("error", onError);
  }
  return { lines: written, failed };
}

/** Respect backpressure so a large input piped into a slow reader does not pile up in memory. */
function write(stream: Writable, text: string): Promise<void> {
  if (stream.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    // "close" too: a stream destroyed by EPIPE never drains
    const done = (): void => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}

export function registerGeometryCommands(program: Command): void {
  const geometry = program.command("geometry").description("GeoJSON geometry tools (GEOS via WebAssembly)");

  geometry
    .command("repair")
    .description("validate and repair GeoJSON read from stdin (one Feature or geometry per line); prints NDJSON")
    .addOption(new Option("--method <method>", "GEOS MakeValid method").choices(METHODS).default("linework"))
    .addOption(new Option("--policy <policy>", "what to do when repair changes the geometry type").choices(POLICIES).default("accept"))
    .addHelpText(
      "after",
      `
One NDJSON object per non-empty input line, in order:
  {"valid_before": bool, "reason": string|null, "location": [x,y]|null,
   "outcome": "valid"|"repaired"|"dropped", "valid_after": bool|null, "type_changed": bool,
   "geometry": GeoJSON|null, "drop_reason": string|null}
Coordinates are read as EPSG:4326. A line that is not JSON, or not a Feature/geometry, prints
{"line": N, "error": "..."} instead (N counts every input line, empty ones included); processing
continues and the exit code is 1. Invalid or dropped geometries are results, not errors.`,
    )
    .action(async (opts: GeometryRepairOptions) => {
      const { failed } = await runGeometryRepair(process.stdin, process.stdout, opts);
      if (failed > 0) process.exitCode = 1;
    });
}
