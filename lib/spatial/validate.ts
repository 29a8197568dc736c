// Validity with an explanation. Our own checks run first, on the GeoJSON, for the problems GEOS cannot even
// represent (its constructors refuse unclosed or too-short rings) or reports without saying where; GEOS's
// IsValidOp (GEOSisValidDetail) then explains the topological problems.
//
// Decisions: an unclosed ring is reported ("Unclosed ring …", so the record counts as invalid) and repaired by
// appending its first point — what shapely does silently when it builds a Polygon, so the linework repair of
// the closed ring matches native make_valid exactly. A ring under 4 points or a line under 2 is removed (GEOS
// cannot build it; JTS GeometryFixer with keepCollapsed=false drops it too); if nothing is left the record is
// dropped. NaN/±Infinity positions are removed, as GeometryFixer and PostGIS #4813 do.
import type { Geos } from "./geos";
import { isFinitePosition, type Geometry, type Position } from "./geojson";

export type OwnIssueCode = "invalid_coordinate" | "unclosed_ring" | "too_few_points";

export interface Issue {
  reason: string;
  location: [number, number] | null;
}

export interface StructureReport {
  issues: (Issue & { code: OwnIssueCode })[];
  /** rings, lines and points removed because they collapsed (too few points after dropping bad coordinates) */
  removedParts: number;
}

/** "(1, 2)" — JS number formatting keeps full precision and prints 0.5 as 0.5. */
export const formatPoint = (x: number, y: number): string => `(${x}, ${y})`;

/**
 * Removes positions with NaN/±Infinity members, like JTS GeometryFixer and PostGIS ST_MakeValid (#4813) do:
 * there is no value to repair them to, and GEOS's linework MakeValid fails outright on them.
 */
function dropInvalidCoordinates(path: Position[], label: string, report: StructureReport): Position[] {
  if (path.every(isFinitePosition)) return path;
  const kept: Position[] = [];
  let reported = false;
  path.forEach((p, i) => {
    if (isFinitePosition(p)) {
      kept.push(p);
    } else if (!reported) {
      // One issue per path is enough to explain it; the location is the last good vertex before the bad one.
      reported = true;
      const before = kept[kept.length - 1];
      report.issues.push({
        code: "invalid_coordinate",
        reason: `Invalid Coordinate (${p[0]}, ${p[1]}) at ${label}[${i}]`,
        location: before ? [before[0]!, before[1]!] : null,
      });
    }
  });
  return kept;
}

/** Returns the ring closed (a new array when it was not); shapely closes rings the same way. */
function closeRing(ring: Position[], label: string, report: StructureReport): Position[] {
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (!first || !last || (first[0] === last[0] && first[1] === last[1])) return ring;
  report.issues.push({
    code: "unclosed_ring",
    reason: `Unclosed ring at ${label}: first point ${formatPoint(first[0]!, first[1]!)} differs from last point ${formatPoint(last[0]!, last[1]!)}`,
    location: [first[0]!, first[1]!],
  });
  return [...ring, first.slice()];
}

function tooFew(path: Position[], label: string, what: string, needed: number, report: StructureReport): boolean {
  if (path.length >= needed) return false;
  const first = path[0];
  report.issues.push({
    code: "too_few_points",
    reason: `Too few points in ${what} at ${label}: ${path.length}, at least ${needed} are required`,
    location: first ? [first[0]!, first[1]!] : null,
  });
  return true;
}

/** Returns the cleaned polygon rings, or null when the shell collapsed (the whole polygon goes). */
function cleanPolygon(rings: Position[][], label: string, report: StructureReport): Position[][] | null {
  const out: Position[][] = [];
  for (let r = 0; r < rings.length; r++) {
    const ringLabel = `${label}[${r}]`;
    const original = rings[r]!;
    // An empty shell with no holes is POLYGON EMPTY, which is valid; an empty ring anywhere else is not.
    if (original.length === 0 && rings.length === 1) return [];
    const kept = dropInvalidCoordinates(original, ringLabel, report);
    let ring = closeRing(kept, ringLabel, report);
    if (kept.length > 0 && kept.length < 4 && ring === kept) {
      // A closed ring with too few points — there and back (A, B, A), or one point (A) or (A, A) — is padded with
      // its last point as shapely builds it ((A, B, A, A)); GEOS's linework MakeValid then keeps it as the line
      // A–B or the point A, as PostGIS's clean.sql expects (RT 11, RT 12, PG 1), and the structure method drops
      // it. The reason still says it has too few points. A ring we had to close is not padded.
      tooFew(ring, ringLabel, "ring", 4, report);
      const last = ring[ring.length - 1]!;
      ring = [...ring, ...Array.from({ length: 4 - ring.length }, () => last.slice())];
    }
    if (tooFew(ring, ringLabel, "ring", 4, report)) {
      report.removedParts++;
      if (r === 0) return null; // holes of a collapsed shell have nothing to be holes of
      continue;
    }
    out.push(ring);
  }
  return out;
}

function cleanLine(line: Position[], label: string, report: StructureReport): Position[] | null {
  if (line.length === 0) return line;
  const kept = dropInvalidCoordinates(line, label, report);
  if (!tooFew(kept, label, "LineString", 2, report)) return kept;
  if (kept.length === 0) {
    report.removedParts++;
    return null;
  }
  // One point (as given, or left after invalid coordinates went) is padded to a zero-length line, as PostGIS
  // makes a line GEOS-friendly: GEOS's linework MakeValid then keeps it as that point (clean.sql #4813.11
  // expects POINT(1 0)), as it already did for (A, A); the structure method drops it. The reason stays.
  return [kept[0]!, kept[0]!.slice()];
}

function cleanPoints(points: Position[], label: string, report: StructureReport): Position[] {
  const kept = dropInvalidCoordinates(points, label, report);
  report.removedParts += points.length - kept.length;
  return kept;
}

function clean(geometry: Geometry, prefix: string, report: StructureReport): Geometry {
  const label = `${prefix}coordinates`;
  switch (geometry.type) {
    case "Point": {
      const kept = geometry.coordinates.length === 0 ? [] : cleanPoints([geometry.coordinates], label, report);
      return { type: "Point", coordinates: kept[0] ?? [] };
    }
    case "MultiPoint":
      return { type: "MultiPoint", coordinates: cleanPoints(geometry.coordinates, label, report) };
    case "LineString":
      return { type: "LineString", coordinates: cleanLine(geometry.coordinates, label, report) ?? [] };
    case "MultiLineString": {
      const lines = geometry.coordinates.map((line, i) => cleanLine(line, `${label}[${i}]`, report));
      return { type: "MultiLineString", coordinates: lines.filter((line): line is Position[] => line !== null) };
    }
    case "Polygon":
      return { type: "Polygon", coordinates: cleanPolygon(geometry.coordinates, label, report) ?? [] };
    case "MultiPolygon": {
      const polygons = geometry.coordinates.map((rings, i) => cleanPolygon(rings, `${label}[${i}]`, report));
      return { type: "MultiPolygon", coordinates: polygons.filter((p): p is Position[][] => p !== null) };
    }
    case "GeometryCollection":
      return {
        type: "GeometryCollection",
        geometries: geometry.geometries.map((member, i) => clean(member, `${prefix}geometries[${i}].`, report)),
      };
  }
}

/**
 * Our own checks, in the order a reader would want them: invalid coordinates, unclosed rings, too few points.
 * Returns a geometry GEOS can construct: bad coordinates removed, rings closed, collapsed parts removed
 * (the equivalent of GEOS MakeValid's keepCollapsed=false, which we could not otherwise apply because GEOS
 * refuses to build such rings at all). The input is not modified; unchanged paths are shared with it.
 */
export function inspectStructure(geometry: Geometry): { geometry: Geometry; report: StructureReport } {
  const report: StructureReport = { issues: [], removedParts: 0 };
  return { geometry: clean(geometry, "", report), report };
}

export interface GeosValidity {
  valid: boolean;
  /** "Self-intersection at or near point (0.5, 0.5)"; null when valid */
  reason: string | null;
  location: [number, number] | null;
}

/**
 * GEOSisValidDetail with OGC rules (flag 0: a self-touching ring forming a hole is invalid, as in shapely's
 * is_valid/explain_validity). Frees the reason string and the location point GEOS allocates.
 */
export function geosValidity(geos: Geos, g: number): GeosValidity {
  const { lib, ctx, outA, outB } = geos;
  geos.u32[outA >> 2] = 0;
  geos.u32[outB >> 2] = 0;
  const result = lib.GEOSisValidDetail_r(ctx, g, 0, outA, outB);
  const reasonPtr = geos.u32[outA >> 2]!;
  const locationPtr = geos.u32[outB >> 2]!;
  try {
    if (result === 1) return { valid: true, reason: null, location: null };
    if (result !== 0) {
      return { valid: false, reason: `Validity check failed: ${geos.takeError() ?? "GEOS exception"}`, location: null };
    }
    const text = reasonPtr ? lib.Module.UTF8ToString(reasonPtr) : "Invalid geometry";
    if (!locationPtr) return { valid: false, reason: text, location: null };
    lib.GEOSGeomGetX_r(ctx, locationPtr, geos.outDouble);
    const x = geos.f64[geos.outDouble >> 3]!;
    lib.GEOSGeomGetY_r(ctx, locationPtr, geos.outDouble);
    const y = geos.f64[geos.outDouble >> 3]!;
    return { valid: false, reason: `${text} at or near point ${formatPoint(x, y)}`, location: [x, y] };
  } finally {
    if (reasonPtr) lib.GEOSFree_r(ctx, reasonPtr);
    geos.destroy(locationPtr);
  }
}
