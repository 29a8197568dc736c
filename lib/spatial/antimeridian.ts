// Geometries that cross the antimeridian (RFC 7946 §3.1.9).
//
// A ring such as Fiji's [[178,-17],[-179,-17],[-179,-16],[178,-16],[178,-17]] is planar-valid, so GEOS calls it
// valid and make_valid keeps it: a band 357° wide around the world. We recognise it by a jump of more than 180° in
// longitude between consecutive vertices, "unwrap" the longitudes into a continuous range (178 → 181), let GEOS
// validate/repair that true shape, then cut it at ±180 and shift the pieces back: a MultiPolygon, as RFC 7946
// asks. A ring that encircles a pole (it crosses an odd number of times, so unwrapping does not close it) is
// closed along the pole of the hemisphere holding most of its vertices — the usual heuristic; RFC 7946 winding
// order cannot be relied on from arbitrary producers.
import { GeosError, type Geos } from "./geos";
import { fromGeos, withGeos } from "./geos-io";
import { bboxOf, type Geometry, type Position } from "./geojson";
import { formatPoint } from "./validate";

export interface Crossing {
  reason: string;
  location: [number, number];
}

/**
 * An edge whose ends are both on the seam (|lon| = 180) or both on a pole (|lat| = 90) runs along the map's edge
 * rather than across it: that is how valid data such as Natural Earth's Antarctica closes its ring.
 */
const alongEdge = (a: Position, b: Position): boolean =>
  (Math.abs(a[0]!) === 180 && Math.abs(b[0]!) === 180) || (Math.abs(a[1]!) === 90 && a[1] === b[1]);

function jumpIn(path: Position[]): Crossing | null {
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1]!,
      b = path[i]!;
    if (Math.abs(b[0]! - a[0]!) > 180 && !alongEdge(a, b)) {
      return {
        reason: `Crosses the antimeridian between ${formatPoint(a[0]!, a[1]!)} and ${formatPoint(b[0]!, b[1]!)}`,
        location: [a[0]!, a[1]!],
      };
    }
  }
  return null;
}

const firstJump = (paths: Position[][]): Crossing | null => {
  for (const path of paths) {
    const jump = jumpIn(path);
    if (jump) return jump;
  }
  return null;
};

/** The first antimeridian crossing in a ring or line (points are not connected, so never cross). */
export function findCrossing(geometry: Geometry): Crossing | null {
  switch (geometry.type) {
    case "Point":
    case "MultiPoint":
      return null;
    case "LineString":
      return jumpIn(geometry.coordinates);
    case "MultiLineString":
    case "Polygon":
      return firstJump(geometry.coordinates);
    case "MultiPolygon":
      return firstJump(geometry.coordinates.flat());
    case "GeometryCollection":
      for (const member of geometry.geometries) {
        const crossing = findCrossing(member);
        if (crossing) return crossing;
      }
      return null;
  }
}

/** Copies a path with longitudes made continuous; `turns` is the net number of 360° wraps. */
function unwrapPath(path: Position[], startShift = 0): { path: Position[]; turns: number } {
  let shift = startShift;
  const out = path.map((p, i) => {
    const prev = path[i - 1];
    if (prev && !alongEdge(prev, p)) {
      const dx = p[0]! - prev[0]!;
      if (dx > 180) shift -= 360;
      else if (dx < -180) shift += 360;
    }
    const q = p.slice();
    q[0] = p[0]! + shift;
    return q;
  });
  return { path: out, turns: Math.round((shift - startShift) / 360) };
}

/** Closes a ring that went once around the globe by running along the pole of its hemisphere. */
function closeAroundPole(ring: Position[]): Position[] {
  const first = ring[0]!,
    last = ring[ring.length - 1]!;
  const meanLat = ring.reduce((sum, p) => sum + p[1]!, 0) / ring.length;
  const pole = meanLat >= 0 ? 90 : -90;
  return [...ring, [last[0]!, pole], [first[0]!, pole], first.slice()];
}

function unwrapRing(ring: Position[], startShift = 0): Position[] {
  const { path, turns } = unwrapPath(ring, startShift);
  return turns === 0 ? path : closeAroundPole(path);
}

function unwrapPolygon(rings: Position[][]): Position[][] {
  if (!firstJump(rings)) return rings;
  const [shell, ...holes] = rings;
  if (!shell) return rings;
  const outer = unwrapRing(shell);
  // A loop, not Math.min(...xs): spreading a 300k-vertex ring's longitudes overflows the call stack.
  let west = Infinity;
  let east = -Infinity;
  for (const p of outer) {
    if (p[0]! < west) west = p[0]!;
    if (p[0]! > east) east = p[0]!;
  }
  const centre = (west + east) / 2;
  // Put each hole in the same 360° copy of the world as its shell.
  return [
    outer,
    ...holes.map((hole) => {
      const k = hole[0] ? Math.round((centre - hole[0][0]!) / 360) : 0;
      return unwrapRing(hole, 360 * k);
    }),
  ];
}

/** A copy of the geometry with longitudes continuous across the antimeridian (may exceed ±180). */
export function unwrapGeometry(geometry: Geometry): Geometry {
  switch (geometry.type) {
    case "Point":
    case "MultiPoint":
      return geometry;
    case "LineString":
      return { type: "LineString", coordinates: unwrapPath(geometry.coordinates).path };
    case "MultiLineString":
      return { type: "MultiLineString", coordinates: geometry.coordinates.map((line) => unwrapPath(line).path) };
    case "Polygon":
      return { type: "Polygon", coordinates: unwrapPolygon(geometry.coordinates) };
    case "MultiPolygon":
      return { type: "MultiPolygon", coordinates: geometry.coordinates.map(unwrapPolygon) };
    case "GeometryCollection":
      return { type: "GeometryCollection", geometries: geometry.geometries.map(unwrapGeometry) };
  }
}

interface Pieces {
  polygons: Position[][][];
  lines: Position[][];
  points: Position[];
}

function shiftInto(geometry: Geometry, dx: number, pieces: Pieces): void {
  const shift = (p: Position): Position => {
    const q = p.slice();
    q[0] = p[0]! + dx;
    return q;
  };
  switch (geometry.type) {
    case "Point":
      if (geometry.coordinates.length > 0) pieces.points.push(shift(geometry.coordinates));
      return;
    case "MultiPoint":
      pieces.points.push(...geometry.coordinates.map(shift));
      return;
    case "LineString":
      if (geometry.coordinates.length > 0) pieces.lines.push(geometry.coordinates.map(shift));
      return;
    case "MultiLineString":
      pieces.lines.push(...geometry.coordinates.map((l) => l.map(shift)));
      return;
    case "Polygon":
      if (geometry.coordinates.length > 0) pieces.polygons.push(geometry.coordinates.map((r) => r.map(shift)));
      return;
    case "MultiPolygon":
      pieces.polygons.push(...geometry.coordinates.map((poly) => poly.map((r) => r.map(shift))));
      return;
    case "GeometryCollection":
      for (const member of geometry.geometries) shiftInto(member, dx, pieces);
  }
}

function assemble(pieces: Pieces): Geometry {
  const members: Geometry[] = [];
  const { polygons, lines, points } = pieces;
  if (polygons.length > 0) {
    members.push(polygons.length === 1 ? { type: "Polygon", coordinates: polygons[0]! } : { type: "MultiPolygon", coordinates: polygons });
  }
  if (lines.length > 0) {
    members.push(lines.length === 1 ? { type: "LineString", coordinates: lines[0]! } : { type: "MultiLineString", coordinates: lines });
  }
  if (points.length > 0) {
    members.push(points.length === 1 ? { type: "Point", coordinates: points[0]! } : { type: "MultiPoint", coordinates: points });
  }
  return members.length === 1 ? members[0]! : { type: "GeometryCollection", geometries: members };
}

function presentKinds(geometry: Geometry, kinds: Set<keyof Pieces>): Set<keyof Pieces> {
  if (geometry.type === "GeometryCollection") for (const member of geometry.geometries) presentKinds(member, kinds);
  else if (geometry.type.endsWith("Polygon")) kinds.add("polygons");
  else if (geometry.type.endsWith("LineString")) kinds.add("lines");
  else kinds.add("points");
  return kinds;
}

/** Merges polygon pieces that share edges (the two halves of a polar cap cut at its seam). */
function unionPolygons(geos: Geos, polygons: Position[][][]): Position[][][] {
  if (polygons.length < 2) return polygons;
  const merged = withGeos(geos, { type: "MultiPolygon", coordinates: polygons }, (g) => {
    const union = geos.lib.GEOSUnaryUnion_r(geos.ctx, g);
    if (union === 0) throw new GeosError("GEOSUnaryUnion", geos.takeError());
    try {
      return fromGeos(geos, union);
    } finally {
      geos.destroy(union);
    }
  });
  if (merged.type === "Polygon") return [merged.coordinates];
  return merged.type === "MultiPolygon" ? merged.coordinates : polygons;
}

/**
 * Cuts an unwrapped GEOS geometry (valid, owned by the caller) into its 360°-wide world copies and shifts each
 * piece back into [-180, 180]. Pieces meeting at ±180 stay separate parts, as RFC 7946 wants. Lower-dimension
 * slivers (a polygon edge lying exactly on a cut) are dropped unless the input had parts of that dimension.
 */
export function splitAtAntimeridian(geos: Geos, g: number, unwrapped: Geometry): Geometry {
  const { lib, ctx } = geos;
  const bbox = bboxOf(unwrapped);
  if (!bbox) return unwrapped;
  const pieces: Pieces = { polygons: [], lines: [], points: [] };
  const first = Math.floor((bbox[0] + 180) / 360);
  const last = Math.ceil((bbox[2] + 180) / 360) - 1;
  for (let k = first; k <= last; k++) {
    const box = lib.GEOSGeom_createRectangle_r(ctx, -180 + 360 * k, bbox[1] - 1, 180 + 360 * k, bbox[3] + 1);
    if (box === 0) throw new GeosError("GEOSGeom_createRectangle", geos.takeError());
    const piece = lib.GEOSIntersection_r(ctx, g, box);
    geos.destroy(box);
    if (piece === 0) throw new GeosError("GEOSIntersection", geos.takeError());
    try {
      shiftInto(fromGeos(geos, piece), -360 * k, pieces);
    } finally {
      geos.destroy(piece);
    }
  }
  const kinds = presentKinds(unwrapped, new Set());
  return assemble({
    polygons: kinds.has("polygons") ? unionPolygons(geos, pieces.polygons) : [],
    lines: kinds.has("lines") ? pieces.lines : [],
    points: kinds.has("points") ? pieces.points : [],
  });
}
