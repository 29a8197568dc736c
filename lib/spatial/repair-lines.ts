// Per-line logic of `redrive geometry repair` (the command file only streams): one NDJSON input line — a GeoJSON
// Feature or bare geometry — to exactly one output line, so results can be pasted next to the input.
import { parseJsonOrPython } from "../json/lossless";
import { parseProblem } from "../json/depth";
import type { RepairMethod, RepairPolicy } from "@/lib/vocabulary/record";
import { analyzeGeometry } from "./analyze";
import { isGeometryType, type Geometry } from "./geojson";
import type { Geos } from "./geos";

/** The output contract of the command; the key order is part of it. */
export interface RepairLineOutput {
  valid_before: boolean;
  reason: string | null;
  location: [number, number] | null;
  outcome: "valid" | "repaired" | "dropped";
  valid_after: boolean | null;
  type_changed: boolean;
  geometry: Geometry | null;
  drop_reason: string | null;
}

export interface RepairLineError {
  line: number;
  error: string;
}

export type RepairLineResult = { ok: true; output: RepairLineOutput } | { ok: false; output: RepairLineError };

export interface RepairLineOptions {
  method: RepairMethod;
  policy: RepairPolicy;
}

function typeLabel(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/** The geometry member to analyze, or why the line is not a Feature/geometry at all. */
function geometryOf(value: unknown): { ok: true; geometry: unknown } | { ok: false; error: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `not a GeoJSON Feature or geometry (found ${typeLabel(value)})` };
  }
  const type = (value as { type?: unknown }).type;
  if (type === "Feature") return { ok: true, geometry: (value as { geometry?: unknown }).geometry ?? null };
  if (isGeometryType(type)) return { ok: true, geometry: value };
  if (type === "FeatureCollection") return { ok: false, error: "a FeatureCollection is not accepted: write one Feature per line" };
  return { ok: false, error: `not a GeoJSON Feature or geometry (type ${JSON.stringify(type ?? null)})` };
}

/** Analyze one non-empty input line. A line that is not JSON, or not a Feature/geometry, is an error line. */
export function repairLine(geos: Geos, line: string, lineNumber: number, opts: RepairLineOptions): RepairLineResult {
  let value: unknown;
  try {
    value = parseJsonOrPython(line); // a bare NaN coordinate, as json.dumps writes it, gets its own reason
  } catch (error) {
    return { ok: false, output: { line: lineNumber, error: parseProblem(error) } };
  }
  const target = geometryOf(value);
  if (!target.ok) return { ok: false, output: { line: lineNumber, error: target.error } };
  let result: ReturnType<typeof analyzeGeometry>;
  try {
    result = analyzeGeometry(geos, target.geometry, { method: opts.method, policy: opts.policy });
  } catch (error) {
    // Not expected (bad input is a "dropped" result); if it happens, this line says so and the rest go on.
    return { ok: false, output: { line: lineNumber, error: `could not be analyzed: ${(error as Error).message}` } };
  }
  const { analysis, repaired } = result;
  return {
    ok: true,
    output: {
      // Unparseable input has valid_before null in the stored analysis; this contract is boolean.
      valid_before: analysis.valid_before === true,
      reason: analysis.reason,
      location: analysis.location,
      outcome: analysis.outcome,
      valid_after: analysis.valid_after,
      type_changed: analysis.type_changed,
      geometry: repaired,
      drop_reason: analysis.drop_reason,
    },
  };
}
