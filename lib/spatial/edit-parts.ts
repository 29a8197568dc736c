import type { Geometry, Position } from "./geojson";

// A geometry ↔ the simple shapes a map editor (terra-draw) can edit: one polygon per ring (it has no holes),
// one line per line string, one point per point. Each shape carries the path back to its place in the
// geometry, so an edited shape is written back without touching anything else — a MultiPolygon with holes or
// a GeometryCollection round-trips. Pure and client-safe.

export type EditKind = "polygon" | "linestring" | "point";

export interface EditPart {
  /** index path: MultiPolygon [polygon, ring], Polygon [ring], MultiLineString [line], GeometryCollection [member, …] */
  path: number[];
  kind: EditKind;
  coordinates: Position[];
}

export interface EditSplit {
  parts: EditPart[];
  /** shapes the editor cannot take (an unclosed ring, a one-point line), with why; edit them in the JSON */
  skipped: string[];
  /** the unclosed rings among them that closeRing can close (3 or more usable positions) */
  closable: number[][];
}

const closed = (ring: Position[]) => ring.length >= 4 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1];
const finite = (ps: Position[]) => ps.every((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]));

export function toEditParts(geometry: Geometry): EditSplit {
  const parts: EditPart[] = [];
  const skipped: string[] = [];
  const closable: number[][] = [];
  const ring = (coords: Position[], path: number[]) => {
    if (!finite(coords)) skipped.push(`ring ${path.join(".")} has a non-numeric coordinate`);
    else if (!closed(coords)) {
      skipped.push(`ring ${path.join(".")} is not closed (or has fewer than 4 positions)`);
      if (canClose(coords)) closable.push(path);
    } else parts.push({ path, kind: "polygon", coordinates: coords });
  };
  const line = (coords: Position[], path: number[]) => {
    if (coords.length < 2 || !finite(coords)) skipped.push(`line ${path.join(".") || "0"} has fewer than 2 usable positions`);
    else parts.push({ path, kind: "linestring", coordinates: coords });
  };
  const point = (p: Position, path: number[]) => {
    if (p.length >= 2 && finite([p])) parts.push({ path, kind: "point", coordinates: [p] });
  };
  const walk = (g: Geometry, base: number[]) => {
    switch (g.type) {
      case "Point":
        if (g.coordinates.length) point(g.coordinates, base);
        return;
      case "MultiPoint":
        g.coordinates.forEach((p, i) => point(p, [...base, i]));
        return;
      case "LineString":
        line(g.coordinates, base);
        return;
      case "MultiLineString":
        g.coordinates.forEach((l, i) => line(l, [...base, i]));
        return;
      case "Polygon":
        g.coordinates.forEach((r, i) => ring(r, [...base, i]));
        return;
      case "MultiPolygon":
        g.coordinates.forEach((poly, i) => poly.forEach((r, j) => ring(r, [...base, i, j])));
        return;
      case "GeometryCollection":
        g.geometries.forEach((m, i) => walk(m, [...base, i]));
    }
  };
  walk(geometry, []);
  return { parts, skipped, closable };
}

// Three distinct corners make the smallest ring; appending the first position closes it.
const canClose = (ring: Position[]) => ring.length >= 3 && !closed(ring);

/** A copy of `geometry` with the unclosed ring at `path` closed by appending its first position; unchanged otherwise. */
export function closeRing(geometry: Geometry, path: readonly number[]): Geometry {
  const ring = ringAt(geometry, path);
  if (!ring || !finite(ring) || !canClose(ring)) return geometry;
  return applyPart(geometry, path, [...ring, ring[0]!.slice()]);
}

function ringAt(geometry: Geometry, path: readonly number[]): Position[] | null {
  const [head, ...rest] = path;
  if (head === undefined) return null;
  if (geometry.type === "Polygon") return rest.length === 0 ? (geometry.coordinates[head] ?? null) : null;
  if (geometry.type === "MultiPolygon") return rest.length === 1 ? (geometry.coordinates[head]?.[rest[0]!] ?? null) : null;
  if (geometry.type === "GeometryCollection") {
    const member = geometry.geometries[head];
    return member ? ringAt(member, rest) : null;
  }
  return null;
}

/** A copy of `geometry` with the shape at `path` replaced by `coordinates` (a point takes the first position). */
export function applyPart(geometry: Geometry, path: readonly number[], coordinates: Position[]): Geometry {
  const [head, ...rest] = path;
  switch (geometry.type) {
    case "Point":
      return { type: "Point", coordinates: coordinates[0] ?? geometry.coordinates };
    case "MultiPoint":
      return { type: "MultiPoint", coordinates: geometry.coordinates.map((p, i) => (i === head ? (coordinates[0] ?? p) : p)) };
    case "LineString":
      return { type: "LineString", coordinates };
    case "MultiLineString":
    case "Polygon":
      return { type: geometry.type, coordinates: geometry.coordinates.map((c, i) => (i === head ? coordinates : c)) } as Geometry;
    case "MultiPolygon":
      return {
        type: "MultiPolygon",
        coordinates: geometry.coordinates.map((poly, i) => (i === head ? poly.map((r, j) => (j === rest[0] ? coordinates : r)) : poly)),
      };
    case "GeometryCollection":
      return {
        type: "GeometryCollection",
        geometries: geometry.geometries.map((m, i) => (i === head ? applyPart(m, rest, coordinates) : m)),
      };
  }
}
