// GeoJSON geometry types and a structural parser for untrusted input.
// The parser only checks shape (types, nesting, numbers); geometric validity is validate.ts's job. It always
// returns fresh arrays, so later stages (reprojection) may mutate them in place.
import { isLosslessNumber } from "lossless-json";
import type { JsonValue } from "@/lib/json/value";

/** [x, y] or [x, y, z]; extra members beyond z (allowed by RFC 7946 §3.1.1) are dropped while parsing. */
export type Position = number[];
export type BBox = [number, number, number, number];

export interface PointGeometry {
  type: "Point";
  coordinates: Position;
}
export interface MultiPointGeometry {
  type: "MultiPoint";
  coordinates: Position[];
}
export interface LineStringGeometry {
  type: "LineString";
  coordinates: Position[];
}
export interface MultiLineStringGeometry {
  type: "MultiLineString";
  coordinates: Position[][];
}
export interface PolygonGeometry {
  type: "Polygon";
  coordinates: Position[][];
}
export interface MultiPolygonGeometry {
  type: "MultiPolygon";
  coordinates: Position[][][];
}
export interface GeometryCollectionGeometry {
  type: "GeometryCollection";
  geometries: Geometry[];
}

export type Geometry =
  | PointGeometry
  | MultiPointGeometry
  | LineStringGeometry
  | MultiLineStringGeometry
  | PolygonGeometry
  | MultiPolygonGeometry
  | GeometryCollectionGeometry;

export type GeometryType = Geometry["type"];

export const GEOMETRY_TYPES: readonly GeometryType[] = [
  "Point",
  "MultiPoint",
  "LineString",
  "MultiLineString",
  "Polygon",
  "MultiPolygon",
  "GeometryCollection",
];

export function isGeometryType(value: unknown): value is GeometryType {
  return typeof value === "string" && (GEOMETRY_TYPES as readonly string[]).includes(value);
}

export type ParseResult = { ok: true; geometry: Geometry } | { ok: false; reason: string };

/** Thrown inside the recursive descent only; parseGeometry turns it into a ParseResult. */
class ShapeError extends Error {}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing (the member is missing)";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * A coordinate member as a JS number. LosslessNumber (from the lossless-json ingest parser) is converted with
 * parseFloat, not valueOf(): valueOf() throws on lexemes with more digits than a double holds, and for a
 * coordinate the nearest double is exactly what every GIS library would use. Non-finite values (1e999 parses
 * to Infinity) are kept here and reported by validate.ts as "Invalid Coordinate".
 */
function toCoordinate(value: unknown, path: string): number {
  if (typeof value === "number") return value;
  if (isLosslessNumber(value)) return parseFloat(value.value);
  throw new ShapeError(`Coordinate at ${path} is not a number (found ${describe(value)})`);
}

function parsePosition(value: unknown, path: string): Position {
  if (!Array.isArray(value)) throw new ShapeError(`Expected a position (array of numbers) at ${path}, found ${describe(value)}`);
  if (value.length < 2) throw new ShapeError(`Position at ${path} has ${value.length} number(s); at least 2 are required`);
  const x = toCoordinate(value[0], `${path}[0]`);
  const y = toCoordinate(value[1], `${path}[1]`);
  return value.length >= 3 ? [x, y, toCoordinate(value[2], `${path}[2]`)] : [x, y];
}

function parseArray<T>(value: unknown, path: string, what: string, item: (v: unknown, p: string) => T): T[] {
  if (!Array.isArray(value)) throw new ShapeError(`Expected ${what} at ${path}, found ${describe(value)}`);
  const out = new Array<T>(value.length);
  for (let i = 0; i < value.length; i++) out[i] = item(value[i], `${path}[${i}]`);
  return out;
}

const positions = (v: unknown, p: string): Position[] => parseArray(v, p, "an array of positions", parsePosition);
const rings = (v: unknown, p: string): Position[][] => parseArray(v, p, "an array of rings", positions);

const memberPath = (path: string, member: string): string => (path ? `${path}.${member}` : member);

// The spatial checks run on every record ingested and on every record a GEOS rule looks at: their hot functions
// create no closures per call, which under tsx (the ingest threads) each cost a defineProperty (esbuild's keepNames).
function parseShape(value: unknown, path: string, depth: number): Geometry {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ShapeError(`Geometry${path ? ` at ${path}` : ""} must be a GeoJSON object, found ${describe(value)}`);
  }
  const record = value as Record<string, unknown>;
  const type = record.type;
  if (!isGeometryType(type)) {
    throw new ShapeError(`Unknown geometry type ${JSON.stringify(type ?? null)}${path ? ` at ${path}` : ""}`);
  }
  if (type === "GeometryCollection") {
    // Nesting is legal GeoJSON but unbounded recursion on hostile input is not.
    if (depth > 32) throw new ShapeError(`GeometryCollection nested deeper than 32 levels at ${path}`);
    const geometries = parseArray(record.geometries, memberPath(path, "geometries"), "an array of geometries", (v, p) =>
      parseShape(v, p, depth + 1),
    );
    return { type, geometries };
  }
  const c = record.coordinates;
  const cp = memberPath(path, "coordinates");
  switch (type) {
    case "Point":
      // An empty array is not RFC 7946 but is how several producers (and GEOS) write POINT EMPTY.
      return { type, coordinates: Array.isArray(c) && c.length === 0 ? [] : parsePosition(c, cp) };
    case "MultiPoint":
      return { type, coordinates: positions(c, cp) };
    case "LineString":
      return { type, coordinates: positions(c, cp) };
    case "MultiLineString":
      return { type, coordinates: rings(c, cp) };
    case "Polygon":
      return { type, coordinates: rings(c, cp) };
    case "MultiPolygon":
      return { type, coordinates: parseArray(c, cp, "an array of polygons", rings) };
  }
}

/** Structural parse of an untrusted value into a Geometry; never throws. */
export function parseGeometry(value: unknown): ParseResult {
  try {
    return { ok: true, geometry: parseShape(value, "", 0) };
  } catch (error) {
    if (error instanceof ShapeError) return { ok: false, reason: error.message };
    throw error;
  }
}

/** Calls fn for every coordinate path (ring, line or point list) of the geometry. */
export function forEachPath(geometry: Geometry, fn: (path: Position[]) => void): void {
  switch (geometry.type) {
    case "Point":
      if (geometry.coordinates.length > 0) fn([geometry.coordinates]);
      return;
    case "MultiPoint":
    case "LineString":
      fn(geometry.coordinates);
      return;
    case "MultiLineString":
    case "Polygon":
      for (const part of geometry.coordinates) fn(part);
      return;
    case "MultiPolygon":
      for (const polygon of geometry.coordinates) for (const ring of polygon) fn(ring);
      return;
    case "GeometryCollection":
      for (const member of geometry.geometries) forEachPath(member, fn);
  }
}

export function isEmptyGeometry(geometry: Geometry): boolean {
  let empty = true;
  forEachPath(geometry, (path) => {
    if (path.length > 0) empty = false;
  });
  return empty;
}

/** Envelope of the finite coordinates, or null when there are none. */
export function bboxOf(geometry: Geometry): BBox | null {
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  forEachPath(geometry, (path) => {
    for (const p of path) {
      const x = p[0]!,
        y = p[1]!;
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  });
  return minX <= maxX ? [minX, minY, maxX, maxY] : null;
}

type JsonGeometry = { [key: string]: JsonValue };

/** A position GEOS and JSON can take: finite x and y (a z is extra; validate.ts removes the others, reported). */
export const isFinitePosition = (p: Position): boolean => Number.isFinite(p[0]) && Number.isFinite(p[1]);

// x and y decide (isFinitePosition, as the checks do); a z JSON cannot carry is dropped alone (the position stays 2D).
function jsonPosition(p: Position): JsonValue[] {
  return p.length > 2 && !Number.isFinite(p[2]) ? [p[0]!, p[1]!] : p;
}

function jsonPath(ps: Position[]): JsonValue[][] {
  return ps.filter(isFinitePosition).map(jsonPosition);
}

function jsonRings(rings: Position[][]): JsonValue[][][] {
  return rings.map(jsonPath);
}

/**
 * The geometry as a JsonValue for storage. A position JSON cannot carry — NaN or ±Infinity, from a bare NaN or a
 * 1e999 lexeme — is left out, as the repair leaves it out (validate.ts): as null it made the working geometry
 * unreadable, so re-validating it later (an edit, a replay) dropped a record the ingest had repaired, and in a
 * projected CRS its finite half stayed in metres among degrees. The exact text stays in the raw envelope, and
 * the analysis names the position.
 */
export function geometryToJson(geometry: Geometry): JsonGeometry {
  switch (geometry.type) {
    case "Point":
      return { type: geometry.type, coordinates: isFinitePosition(geometry.coordinates) ? jsonPosition(geometry.coordinates) : [] };
    case "MultiPoint":
    case "LineString":
      return { type: geometry.type, coordinates: jsonPath(geometry.coordinates) };
    case "MultiLineString":
    case "Polygon":
      return { type: geometry.type, coordinates: geometry.coordinates.map(jsonPath) };
    case "MultiPolygon":
      return { type: geometry.type, coordinates: geometry.coordinates.map(jsonRings) };
    case "GeometryCollection":
      return { type: geometry.type, geometries: geometry.geometries.map(geometryToJson) };
  }
}
