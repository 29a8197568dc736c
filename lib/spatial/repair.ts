// Repair (GEOSMakeValidWithParams) and the repair policy applied to its result.
//
// Methods: "linework" is GEOS's original MakeValid and shapely's make_valid default: it nodes all the linework
// and rebuilds polygons from it, keeping collapsed parts as lines/points (a spike comes back as
// GEOMETRYCOLLECTION(POLYGON, LINESTRING)). "structure" is JTS's GeometryFixer: shells are unioned, holes
// subtracted, collapsed parts dropped (keepCollapsed = false). buffer(0) is deliberately absent: on a bowtie it
// silently drops one lobe and reports success.
import type { RepairMethod, RepairPolicy } from "@/lib/vocabulary/record";
import type { Geos } from "./geos";
import { geosIsEmpty, geosTypeName } from "./geos-io";
import type { GeometryType } from "./geojson";
import { geosValidity } from "./validate";

export type MakeValidResult = { ok: true; g: number } | { ok: false; reason: string };

/** A new valid-or-not geometry (caller destroys) or the GEOS error. Validity of the result is checked by the caller. */
export function makeValid(geos: Geos, g: number, method: RepairMethod): MakeValidResult {
  const params = geos.makeValidParams(method);
  const out = geos.lib.GEOSMakeValidWithParams_r(geos.ctx, g, params);
  if (out === 0) return { ok: false, reason: `Repair failed: ${geos.takeError() ?? "GEOS returned no geometry"}` };
  return { ok: true, g: out };
}

/**
 * GeometryFixer can return an invalid result: for a ring that folds back along one of its own edges
 * (PostGIS clean.sql RT 7.1 and RT 15) both GEOS 3.11 native and 3.13 wasm return a MultiPolygon of two squares
 * sharing that edge. Running the fixer once more on its own output unions them, so a second pass turns a drop
 * into a repair; more passes never helped in the corpus.
 */
const MAX_PASSES = 2;

/**
 * Repairs until GEOS calls the result valid (at most MAX_PASSES). Returns a new geometry the caller destroys —
 * valid, or empty when everything collapsed — or why no valid result came out.
 */
export function repairToValid(geos: Geos, g: number, method: RepairMethod): MakeValidResult {
  let current = g;
  for (let pass = 1; ; pass++) {
    const result = makeValid(geos, current, method);
    if (current !== g) geos.destroy(current);
    if (!result.ok) return result;
    if (geosIsEmpty(geos, result.g)) return result;
    const validity = geosValidity(geos, result.g);
    if (validity.valid) return result;
    if (pass === MAX_PASSES) {
      geos.destroy(result.g);
      return { ok: false, reason: `Still invalid after repair: ${validity.reason}` };
    }
    current = result.g;
  }
}

const DIMENSION: Record<GeometryType, 0 | 1 | 2 | null> = {
  Point: 0,
  MultiPoint: 0,
  LineString: 1,
  MultiLineString: 1,
  Polygon: 2,
  MultiPolygon: 2,
  GeometryCollection: null,
};
const DIMENSION_NAME = ["point", "linear", "polygonal"] as const;

/** Leaf parts (points, lines, polygons) of a GEOS geometry, borrowed from it (not owned). */
function leaves(geos: Geos, g: number, out: number[] = []): number[] {
  const type = geosTypeName(geos, g);
  if (type.startsWith("Multi") || type === "GeometryCollection") {
    const n = geos.lib.GEOSGetNumGeometries_r(geos.ctx, g);
    for (let i = 0; i < n; i++) leaves(geos, geos.lib.GEOSGetGeometryN_r(geos.ctx, g, i), out);
  } else if (geos.lib.GEOSisEmpty_r(geos.ctx, g) !== 1) {
    out.push(g);
  }
  return out;
}

function measure(geos: Geos, part: number, dimension: 0 | 1 | 2): number {
  if (dimension === 0) return 0;
  const ok = dimension === 2 ? geos.lib.GEOSArea_r(geos.ctx, part, geos.outDouble) : geos.lib.GEOSLength_r(geos.ctx, part, geos.outDouble);
  return ok === 0 ? 0 : geos.f64[geos.outDouble >> 3]!;
}

function clone(geos: Geos, part: number): number {
  const copy = geos.lib.GEOSGeom_clone_r(geos.ctx, part);
  if (copy === 0) throw new Error(`GEOS clone failed: ${geos.takeError() ?? "unknown error"}`);
  return copy;
}

export interface PolicyOutcome {
  /** the geometry to keep (owned by the caller; may be the input pointer itself), or 0 when dropped */
  g: number;
  typeChanged: boolean;
  droppedParts: number;
  dropReason: string | null;
}

/**
 * Applies the repair policy to a repaired geometry `g` (owned by the caller, never destroyed here).
 * - accept: keep whatever the repair produced.
 * - largest-part: when the type changed, keep the parts of the input's dimension: for a single-part input the
 *   largest one (by area, length), for a multi-part input all of them as a Multi* — so a Polygon stays a Polygon
 *   and a MultiPolygon stays a MultiPolygon. GeometryCollection inputs have no single dimension and are kept.
 * - drop: a type change makes the record unusable for a consumer expecting the original type.
 */
export function applyPolicy(geos: Geos, g: number, typeBefore: GeometryType, policy: RepairPolicy): PolicyOutcome {
  const typeAfter = geosTypeName(geos, g);
  const typeChanged = typeAfter !== typeBefore;
  if (!typeChanged || policy === "accept") return { g, typeChanged, droppedParts: 0, dropReason: null };
  if (policy === "drop") {
    return {
      g: 0,
      typeChanged,
      droppedParts: 0,
      dropReason: `Repair changed the geometry type from ${typeBefore} to ${typeAfter} (policy "drop")`,
    };
  }
  const dimension = DIMENSION[typeBefore];
  if (dimension === null) return { g, typeChanged, droppedParts: 0, dropReason: null };
  const parts = leaves(geos, g);
  const wanted = parts.filter((part) => DIMENSION[geosTypeName(geos, part)] === dimension);
  if (wanted.length === 0) {
    return {
      g: 0,
      typeChanged,
      droppedParts: parts.length,
      dropReason: `Repair left no ${DIMENSION_NAME[dimension]} part (result is ${typeAfter}; policy "largest-part")`,
    };
  }
  if (!typeBefore.startsWith("Multi")) {
    let best = wanted[0]!;
    let bestSize = measure(geos, best, dimension);
    for (const part of wanted.slice(1)) {
      const size = measure(geos, part, dimension);
      if (size > bestSize) [best, bestSize] = [part, size];
    }
    return { g: clone(geos, best), typeChanged, droppedParts: parts.length - 1, dropReason: null };
  }
  const copies = wanted.map((part) => clone(geos, part));
  const array = geos.malloc(copies.length * 4);
  try {
    geos.u32.set(copies, array >> 2);
    const t = geos.lib.GEOSGeomTypes;
    const typeId = [t.GEOS_MULTIPOINT, t.GEOS_MULTILINESTRING, t.GEOS_MULTIPOLYGON][dimension]!;
    const multi = geos.lib.GEOSGeom_createCollection_r(geos.ctx, typeId, array, copies.length);
    if (multi === 0) throw new Error(`GEOS createCollection failed: ${geos.takeError() ?? "unknown error"}`);
    return { g: multi, typeChanged, droppedParts: parts.length - wanted.length, dropReason: null };
  } finally {
    geos.free(array);
  }
}
