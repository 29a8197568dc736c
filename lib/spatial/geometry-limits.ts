// How big a geometry GEOS is given. GEOS's cost grows with the vertex count (and MakeValid's memory with the
// intersections it finds): a 1,000,000-vertex polygon ran the wasm heap out of memory (std::bad_alloc) after a
// minute of repair. This walk counts the raw GeoJSON value before anything is parsed or copied into GEOS, stops
// at the first limit passed, and the caller refuses the geometry with the reason it returns.
import { isLosslessNumber } from "lossless-json";

export interface GeometryLimits {
  /** positions in the whole geometry */
  maxVertices: number;
  /** coordinate sequences (rings, lines, a MultiPoint's list, a Point) plus GeometryCollection members */
  maxParts: number;
  /** GeometryCollections inside GeometryCollections; a plain geometry is at level 0 */
  maxNesting: number;
}

/**
 * Defaults. 200,000 vertices: twice the largest shape the repair and display are benchmarked on (a 100k-vertex
 * polygon, bench:repair), about 8 MB of text (half the 16 MB a record may be), and validated on one thread in
 * well under the time a request may take. 10,000 parts: a city's parcels as one MultiPolygon, and well under the per-part overhead that
 * makes MakeValid's node graph balloon. Nesting 8: RFC 7946 §3.1.8 advises against nested collections at all.
 */
export const DEFAULT_GEOMETRY_LIMITS: GeometryLimits = { maxVertices: 200_000, maxParts: 10_000, maxNesting: 8 };

const isNumber = (v: unknown): boolean => typeof v === "number" || isLosslessNumber(v);

class LimitPassed extends Error {}

/** A walk's counts so far, against its limits. */
interface Count {
  limits: GeometryLimits;
  vertices: number;
  parts: number;
}

function addPart(count: Count): void {
  if (++count.parts > count.limits.maxParts) {
    const max = count.limits.maxParts;
    throw new LimitPassed(`Geometry has more than ${max} parts (rings, lines or members); the limit is ${max}`);
  }
}

function addVertices(count: Count, n: number): void {
  count.vertices += n;
  if (count.vertices > count.limits.maxVertices) {
    const max = count.limits.maxVertices;
    throw new LimitPassed(`Geometry has more than ${max} vertices; the limit is ${max}`);
  }
}

/** `value` is a coordinates array `levels` deep above positions (0: a position, 1: a sequence, …). */
function countCoordinates(count: Count, value: unknown, levels: number): void {
  if (!Array.isArray(value)) return;
  if (levels === 0) return addVertices(count, value.length > 0 && isNumber(value[0]) ? 1 : 0);
  if (levels === 1) {
    addPart(count);
    // A sequence's members are positions: counted by length, not visited (the 1e6-vertex ring is one step).
    return addVertices(count, value.length);
  }
  for (const member of value) countCoordinates(count, member, levels - 1);
}

function countShape(count: Count, value: unknown, nesting: number): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  const { type, coordinates: c, geometries } = value as Record<string, unknown>;
  switch (type) {
    case "Point":
      addPart(count);
      return countCoordinates(count, c, 0);
    case "MultiPoint":
    case "LineString":
      return countCoordinates(count, c, 1);
    case "MultiLineString":
    case "Polygon":
      return countCoordinates(count, c, 2);
    case "MultiPolygon":
      return countCoordinates(count, c, 3);
    case "GeometryCollection": {
      const max = count.limits.maxNesting;
      if (nesting > max) throw new LimitPassed(`GeometryCollection nested more than ${max} levels deep; the limit is ${max}`);
      if (!Array.isArray(geometries)) return;
      for (const member of geometries) {
        addPart(count);
        countShape(count, member, nesting + 1);
      }
    }
  }
}

/**
 * The reason `geometry` passes a limit, or null when it is within them (or is not countable: a shape error is
 * left to parseGeometry, which says what is wrong). Reads only the members GeoJSON defines; O(vertices counted).
 * Module-level steps, no closures: it runs for every record ingested (see geojson.ts parseShape).
 */
export function geometryOverLimits(geometry: unknown, limits: GeometryLimits = DEFAULT_GEOMETRY_LIMITS): string | null {
  try {
    countShape({ limits, vertices: 0, parts: 0 }, geometry, 0);
    return null;
  } catch (e) {
    if (e instanceof LimitPassed) return e.message;
    throw e;
  }
}
