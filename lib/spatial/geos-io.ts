// GeoJSON <-> GEOS through coordinate buffers (GEOSCoordSeq_copyFromBuffer / copyToBuffer).
//
// Buffers, not GEOS's own GeoJSON reader/writer fed with JSON.stringify / JSON.parse: copying coordinates is
// an order of magnitude cheaper for small shapes and more for large ones. The GeoJSON reader also refuses the inputs we most need to explain (unclosed rings), so buffers it is.
// WKB would need a JS encoder/decoder doing the same copying with unaligned DataView reads.
import { Geos, GeosError } from "./geos";
import { forEachPath, type Geometry, type GeometryType, type Position } from "./geojson";

/**
 * Whether every position carries a z. A geometry mixing 2D and 3D positions is read as 2D, as shapely reads it
 * (by its first position, 2D in the cases seen): a NaN z for the missing ones made GEOS's noding hand a z of 5 to
 * a corner that had none, and the output mixed 2D and 3D positions in one ring, which shapely refuses to read.
 */
function allHaveZ(geometry: Geometry): boolean {
  let all = true;
  let any = false;
  forEachPath(geometry, (path) => {
    for (const p of path) {
      if (p.length > 2) any = true;
      else all = false;
    }
  });
  return all && any;
}

/** A new GEOSCoordSequence (owned by the caller until handed to a constructor). */
function toSequence(geos: Geos, path: Position[], z: boolean): number {
  const dims = z ? 3 : 2;
  const ptr = geos.scratch(path.length * dims * 8);
  const heap = geos.f64;
  let o = ptr >> 3;
  for (const p of path) {
    heap[o++] = p[0]!;
    heap[o++] = p[1]!;
    if (z) heap[o++] = p[2]!;
  }
  const seq = geos.lib.GEOSCoordSeq_copyFromBuffer_r(geos.ctx, ptr, path.length, z ? 1 : 0, 0);
  if (seq === 0) throw new GeosError("GEOSCoordSeq_copyFromBuffer", geos.takeError());
  return seq;
}

function checked(geos: Geos, ptr: number, operation: string): number {
  if (ptr === 0) throw new GeosError(operation, geos.takeError());
  return ptr;
}

function lineString(geos: Geos, path: Position[], z: boolean): number {
  const { lib, ctx } = geos;
  if (path.length === 0) return checked(geos, lib.GEOSGeom_createEmptyLineString_r(ctx), "createEmptyLineString");
  // Constructors take ownership of the sequence even when they fail, so it is never freed here.
  return checked(geos, lib.GEOSGeom_createLineString_r(ctx, toSequence(geos, path, z)), "createLineString");
}

function point(geos: Geos, position: Position, z: boolean): number {
  const { lib, ctx } = geos;
  if (position.length === 0) return checked(geos, lib.GEOSGeom_createEmptyPoint_r(ctx), "createEmptyPoint");
  if (!z) return checked(geos, lib.GEOSGeom_createPointFromXY_r(ctx, position[0]!, position[1]!), "createPoint");
  return checked(geos, lib.GEOSGeom_createPoint_r(ctx, toSequence(geos, [position], z)), "createPoint");
}

/** Writes child pointers into a wasm array, calls build, frees the array. build owns the children. */
function withPointerArray(geos: Geos, children: number[], build: (array: number) => number): number {
  if (children.length === 0) return build(0);
  const array = geos.malloc(children.length * 4);
  try {
    geos.u32.set(children, array >> 2);
    return build(array);
  } finally {
    geos.free(array);
  }
}

/** Builds children one by one; if one fails, destroys those already built (nothing owns them yet). */
function buildAll<T>(geos: Geos, items: T[], build: (item: T) => number): number[] {
  const built: number[] = [];
  try {
    for (const item of items) built.push(build(item));
    return built;
  } catch (error) {
    for (const ptr of built) geos.destroy(ptr);
    throw error;
  }
}

function polygon(geos: Geos, rings: Position[][], z: boolean): number {
  const { lib, ctx } = geos;
  if (rings.length === 0) return checked(geos, lib.GEOSGeom_createEmptyPolygon_r(ctx), "createEmptyPolygon");
  const built = buildAll(geos, rings, (ring) =>
    checked(geos, lib.GEOSGeom_createLinearRing_r(ctx, toSequence(geos, ring, z)), "createLinearRing"),
  );
  const [shell, ...holes] = built;
  return withPointerArray(geos, holes, (array) =>
    checked(geos, lib.GEOSGeom_createPolygon_r(ctx, shell!, array, holes.length), "createPolygon"),
  );
}

function collection(geos: Geos, typeId: number, parts: number[]): number {
  return withPointerArray(geos, parts, (array) =>
    checked(geos, geos.lib.GEOSGeom_createCollection_r(geos.ctx, typeId, array, parts.length), "createCollection"),
  );
}

/**
 * A new GEOS geometry (caller destroys). Input must be structurally sound: closed rings of >= 4 points. 3D only
 * when every position has a z (allHaveZ).
 */
export function toGeos(geos: Geos, geometry: Geometry): number {
  return build(geos, geometry, allHaveZ(geometry));
}

function build(geos: Geos, geometry: Geometry, z: boolean): number {
  const t = geos.lib.GEOSGeomTypes;
  switch (geometry.type) {
    case "Point":
      return point(geos, geometry.coordinates, z);
    case "LineString":
      return lineString(geos, geometry.coordinates, z);
    case "Polygon":
      return polygon(geos, geometry.coordinates, z);
    case "MultiPoint":
      return collection(
        geos,
        t.GEOS_MULTIPOINT,
        buildAll(geos, geometry.coordinates, (p) => point(geos, p, z)),
      );
    case "MultiLineString":
      return collection(
        geos,
        t.GEOS_MULTILINESTRING,
        buildAll(geos, geometry.coordinates, (l) => lineString(geos, l, z)),
      );
    case "MultiPolygon":
      return collection(
        geos,
        t.GEOS_MULTIPOLYGON,
        buildAll(geos, geometry.coordinates, (r) => polygon(geos, r, z)),
      );
    case "GeometryCollection":
      return collection(
        geos,
        t.GEOS_GEOMETRYCOLLECTION,
        buildAll(geos, geometry.geometries, (g) => build(geos, g, z)),
      );
  }
}

function fromSequence(geos: Geos, seq: number, withZ: boolean): Position[] {
  const { lib, ctx } = geos;
  if (seq === 0) throw new GeosError("GEOSGeom_getCoordSeq", geos.takeError());
  lib.GEOSCoordSeq_getSize_r(ctx, seq, geos.outA);
  const size = geos.u32[geos.outA >> 2]!;
  if (size === 0) return [];
  const dims = withZ ? 3 : 2;
  const ptr = geos.scratch(size * dims * 8);
  lib.GEOSCoordSeq_copyToBuffer_r(ctx, seq, ptr, withZ ? 1 : 0, 0);
  const heap = geos.f64;
  const out = new Array<Position>(size);
  let o = ptr >> 3;
  for (let i = 0; i < size; i++, o += dims) {
    const z = withZ ? heap[o + 2]! : NaN;
    out[i] = Number.isNaN(z) ? [heap[o]!, heap[o + 1]!] : [heap[o]!, heap[o + 1]!, z];
  }
  return out;
}

function lineOf(geos: Geos, g: number, withZ: boolean): Position[] {
  return fromSequence(geos, geos.lib.GEOSGeom_getCoordSeq_r(geos.ctx, g), withZ);
}

function ringsOf(geos: Geos, g: number, withZ: boolean): Position[][] {
  const { lib, ctx } = geos;
  if (lib.GEOSisEmpty_r(ctx, g) === 1) return [];
  const rings = [fromSequence(geos, lib.GEOSGeom_getCoordSeq_r(ctx, lib.GEOSGetExteriorRing_r(ctx, g)), withZ)];
  const holes = lib.GEOSGetNumInteriorRings_r(ctx, g);
  for (let i = 0; i < holes; i++) {
    rings.push(fromSequence(geos, lib.GEOSGeom_getCoordSeq_r(ctx, lib.GEOSGetInteriorRingN_r(ctx, g, i)), withZ));
  }
  return rings;
}

function pointOf(geos: Geos, g: number, withZ: boolean): Position {
  if (geos.lib.GEOSisEmpty_r(geos.ctx, g) === 1) return [];
  return fromSequence(geos, geos.lib.GEOSGeom_getCoordSeq_r(geos.ctx, g), withZ)[0] ?? [];
}

function partsOf<T>(geos: Geos, g: number, read: (part: number) => T): T[] {
  const n = geos.lib.GEOSGetNumGeometries_r(geos.ctx, g);
  const out = new Array<T>(n);
  for (let i = 0; i < n; i++) out[i] = read(geos.lib.GEOSGetGeometryN_r(geos.ctx, g, i));
  return out;
}

/** The GeoJSON geometry of a GEOS geometry (which stays owned by the caller). */
export function fromGeos(geos: Geos, g: number): Geometry {
  const { lib, ctx } = geos;
  const t = lib.GEOSGeomTypes;
  const withZ = lib.GEOSHasZ_r(ctx, g) === 1;
  switch (lib.GEOSGeomTypeId_r(ctx, g)) {
    case t.GEOS_POINT:
      return { type: "Point", coordinates: pointOf(geos, g, withZ) };
    case t.GEOS_LINESTRING:
    case t.GEOS_LINEARRING:
      return { type: "LineString", coordinates: lineOf(geos, g, withZ) };
    case t.GEOS_POLYGON:
      return { type: "Polygon", coordinates: ringsOf(geos, g, withZ) };
    case t.GEOS_MULTIPOINT:
      return { type: "MultiPoint", coordinates: partsOf(geos, g, (p) => pointOf(geos, p, withZ)) };
    case t.GEOS_MULTILINESTRING:
      return { type: "MultiLineString", coordinates: partsOf(geos, g, (p) => lineOf(geos, p, withZ)) };
    case t.GEOS_MULTIPOLYGON:
      return { type: "MultiPolygon", coordinates: partsOf(geos, g, (p) => ringsOf(geos, p, withZ)) };
    case t.GEOS_GEOMETRYCOLLECTION:
      return { type: "GeometryCollection", geometries: partsOf(geos, g, (p) => fromGeos(geos, p)) };
    default:
      throw new GeosError("GEOSGeomTypeId", geos.takeError() ?? "unknown geometry type");
  }
}

const TYPE_NAMES: readonly GeometryType[] = [
  "Point",
  "LineString",
  "LineString",
  "Polygon",
  "MultiPoint",
  "MultiLineString",
  "MultiPolygon",
  "GeometryCollection",
];

/** GeoJSON type name of a GEOS geometry (LinearRing reads as LineString, as GeoJSON has no ring type). */
export function geosTypeName(geos: Geos, g: number): GeometryType {
  const name = TYPE_NAMES[geos.lib.GEOSGeomTypeId_r(geos.ctx, g)];
  if (!name) throw new GeosError("GEOSGeomTypeId", geos.takeError());
  return name;
}

export function geosArea(geos: Geos, g: number): number {
  if (geos.lib.GEOSArea_r(geos.ctx, g, geos.outDouble) === 0) throw new GeosError("GEOSArea", geos.takeError());
  return geos.f64[geos.outDouble >> 3]!;
}

export function geosIsEmpty(geos: Geos, g: number): boolean {
  return geos.lib.GEOSisEmpty_r(geos.ctx, g) === 1;
}

/** Runs fn with a freshly built GEOS geometry and destroys it afterwards, whatever happens. */
export function withGeos<T>(geos: Geos, geometry: Geometry, fn: (g: number) => T): T {
  const g = toGeos(geos, geometry);
  try {
    return fn(g);
  } finally {
    geos.destroy(g);
  }
}
