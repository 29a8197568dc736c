// Geometry → what a map draws. Pure and client-safe (no GEOS): the detail page's maps, the geometry editor and
// the offline basemap take their GeoJSON from here, so components never do coordinate math themselves.
//
// Why the unwrap: MapLibre draws a ring from 179.9° to -179.9° the long way round, across the whole world. Shifting
// longitudes so consecutive vertices are never more than 180° apart (179.9 → 180.1) draws it where it is; MapLibre
// renders longitudes beyond ±180 on the neighbouring world copy. Every part is also moved into the 360° copy
// nearest a shared reference longitude, so the received and the repaired geometry (split at ±180 by the repair)
// line up on synchronized maps.
import type { Feature, FeatureCollection, LineString, Point, Polygon, MultiPolygon } from "geojson";
import { forEachPath, parseGeometry, type BBox, type Geometry, type Position } from "./geojson";

/** Web Mercator's latitude limit: beyond it the projection goes to infinity. */
export const MAX_MERCATOR_LAT = 85.05;

export type Displayable = { ok: true; geometry: Geometry } | { ok: false; reason: string };

/** The geometry of a payload (a GeoJSON Feature, or a bare geometry) ready to draw, or why it cannot be drawn. */
export function readDisplayGeometry(value: unknown): Displayable {
  let geometry: unknown = value;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && (value as { type?: unknown }).type === "Feature") {
    geometry = (value as { geometry?: unknown }).geometry;
  }
  if (geometry === null || geometry === undefined) return { ok: false, reason: "The geometry is null: there is nothing to draw." };
  const parsed = parseGeometry(geometry);
  if (!parsed.ok) return { ok: false, reason: `The geometry cannot be parsed: ${parsed.reason}` };
  let finite = 0;
  let outOfRange: Position | null = null;
  forEachPath(parsed.geometry, (path) => {
    for (const p of path) {
      const x = p[0]!,
        y = p[1]!;
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      finite++;
      if (!outOfRange && (Math.abs(y) > 90 || Math.abs(x) > 540)) outOfRange = p;
    }
  });
  if (finite === 0) return { ok: false, reason: "The geometry is empty: it has no finite coordinates." };
  if (outOfRange) {
    const [x, y] = outOfRange as Position;
    return { ok: false, reason: `Coordinates are out of range for longitude/latitude (e.g. ${x}, ${y}): wrong CRS?` };
  }
  return { ok: true, geometry: parsed.geometry };
}

/** First finite longitude of a geometry: the reference for unwrapping. */
export function referenceLongitude(geometry: Geometry): number | null {
  let ref: number | null = null;
  forEachPath(geometry, (path) => {
    for (const p of path) {
      if (ref === null && Number.isFinite(p[0]) && Number.isFinite(p[1])) ref = p[0]!;
    }
  });
  return ref;
}

/** A longitude moved by whole turns to within 180° of `ref`. */
export function nearestCopy(lon: number, ref: number): number {
  return lon + 360 * Math.round((ref - lon) / 360);
}

/**
 * Longitudes made continuous, starting in the world copy nearest `ref`. A ring that goes once around a pole
 * (Antarctica) cannot be unwrapped — it would not close — so it is kept as drawn: it runs along the seam.
 */
function unwrapPath(path: Position[], ref: number): Position[] {
  let shift = 0;
  let started = false;
  let prev: Position | null = null;
  const out = path.map((p) => {
    const q = p.slice();
    if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) return q;
    if (!started) {
      shift = nearestCopy(p[0]!, ref) - p[0]!;
      started = true;
    } else if (prev) {
      const dx = p[0]! - prev[0]!;
      if (dx > 180) shift -= 360;
      else if (dx < -180) shift += 360;
    }
    prev = p;
    q[0] = p[0]! + shift;
    return q;
  });
  const first = path[0],
    last = path.at(-1);
  const closed = path.length > 2 && first !== undefined && last !== undefined && first[0] === last[0] && first[1] === last[1];
  if (closed && out[0]?.[0] !== out.at(-1)?.[0]) {
    const k = nearestCopy(first[0]!, ref) - first[0]!;
    return path.map((p) => {
      const q = p.slice();
      q[0] = p[0]! + k;
      return q;
    });
  }
  return out;
}

/** A copy with longitudes continuous within each path and each path in the world copy nearest `ref`. */
export function unwrapForDisplay(geometry: Geometry, ref: number | null = referenceLongitude(geometry)): Geometry {
  if (ref === null) return geometry;
  const path = (p: Position[]) => unwrapPath(p, ref);
  switch (geometry.type) {
    case "Point":
      return geometry.coordinates.length ? { type: "Point", coordinates: path([geometry.coordinates])[0]! } : geometry;
    case "MultiPoint":
      return { type: "MultiPoint", coordinates: geometry.coordinates.map((p) => path([p])[0]!) };
    case "LineString":
      return { type: "LineString", coordinates: path(geometry.coordinates) };
    case "MultiLineString":
    case "Polygon":
      return { type: geometry.type, coordinates: geometry.coordinates.map(path) } as Geometry;
    case "MultiPolygon":
      return { type: "MultiPolygon", coordinates: geometry.coordinates.map((poly) => poly.map(path)) };
    case "GeometryCollection":
      return { type: "GeometryCollection", geometries: geometry.geometries.map((g) => unwrapForDisplay(g, ref)) };
  }
}

/** Bounds of the finite coordinates, [west, south, east, north]; null when there are none. */
export function displayBBox(geometries: readonly (Geometry | null)[]): BBox | null {
  let w = Infinity,
    s = Infinity,
    e = -Infinity,
    n = -Infinity;
  for (const g of geometries) {
    if (!g) continue;
    forEachPath(g, (path) => {
      for (const p of path) {
        const x = p[0]!,
          y = p[1]!;
        if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
        w = Math.min(w, x);
        e = Math.max(e, x);
        s = Math.min(s, y);
        n = Math.max(n, y);
      }
    });
  }
  return w <= e ? [w, s, e, n] : null;
}

/**
 * Bounds to fit the camera to: latitudes clamped to the Mercator limit and a degenerate box (a point, a
 * vertical line) widened to `minSpan` degrees so fitBounds does not zoom to its maximum.
 */
export function fitBox(bbox: BBox, minSpan = 0.0002): [[number, number], [number, number]] {
  let [w, s, e, n] = bbox;
  if (e - w < minSpan) {
    const c = (w + e) / 2;
    w = c - minSpan / 2;
    e = c + minSpan / 2;
  }
  if (n - s < minSpan) {
    const c = (s + n) / 2;
    s = c - minSpan / 2;
    n = c + minSpan / 2;
  }
  const clamp = (y: number) => Math.max(-MAX_MERCATOR_LAT, Math.min(MAX_MERCATOR_LAT, y));
  return [
    [w, clamp(s)],
    [e, clamp(n)],
  ];
}

export interface PartProps {
  part: number;
  ring: number;
  kind: "polygon" | "line" | "point";
}

/** Each drawable part (polygon, line string, point) as its own feature, numbered for colouring. */
export function partsOf(geometry: Geometry): FeatureCollection<Geometry, PartProps> {
  const features: Feature<Geometry, PartProps>[] = [];
  const add = (g: Geometry, kind: PartProps["kind"]) =>
    features.push({ type: "Feature", geometry: g, properties: { part: features.length, ring: 0, kind } });
  const walk = (g: Geometry) => {
    switch (g.type) {
      case "Point":
        if (g.coordinates.length) add(g, "point");
        return;
      case "MultiPoint":
        for (const c of g.coordinates) add({ type: "Point", coordinates: c }, "point");
        return;
      case "LineString":
        add(g, "line");
        return;
      case "MultiLineString":
        for (const c of g.coordinates) add({ type: "LineString", coordinates: c }, "line");
        return;
      case "Polygon":
        add(g, "polygon");
        return;
      case "MultiPolygon":
        for (const c of g.coordinates) add({ type: "Polygon", coordinates: c }, "polygon");
        return;
      case "GeometryCollection":
        for (const m of g.geometries) walk(m);
    }
  };
  walk(geometry);
  return { type: "FeatureCollection", features };
}

/**
 * Every ring and line as a LineString (so a zero-area bowtie, which MapLibre fills with nothing, still shows),
 * numbered by part and ring; points are left to `verticesOf`.
 */
export function linesOf(geometry: Geometry): FeatureCollection<LineString, PartProps> {
  const features: Feature<LineString, PartProps>[] = [];
  partsOf(geometry).features.forEach(({ geometry: g, properties }) => {
    const rings = g.type === "Polygon" ? g.coordinates : g.type === "LineString" ? [g.coordinates] : [];
    rings.forEach((coords, ring) => {
      const finite = coords.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]));
      if (finite.length >= 2)
        features.push({ type: "Feature", geometry: { type: "LineString", coordinates: finite }, properties: { ...properties, ring } });
    });
  });
  return { type: "FeatureCollection", features };
}

export interface VertexProps extends PartProps {
  index: number;
}

/** Every vertex as a point (the closing vertex of a ring once), so repeated and spike vertices can be seen. */
export function verticesOf(geometry: Geometry, limit = 20_000): FeatureCollection<Point, VertexProps> {
  const features: Feature<Point, VertexProps>[] = [];
  for (const { geometry: g, properties } of partsOf(geometry).features) {
    const rings =
      g.type === "Polygon" ? g.coordinates : g.type === "LineString" ? [g.coordinates] : g.type === "Point" ? [[g.coordinates]] : [];
    rings.forEach((coords, ring) => {
      const closed =
        g.type === "Polygon" && coords.length > 1 && coords[0]?.[0] === coords.at(-1)?.[0] && coords[0]?.[1] === coords.at(-1)?.[1];
      const last = closed ? coords.length - 1 : coords.length;
      for (let index = 0; index < last && features.length < limit; index++) {
        const p = coords[index]!;
        if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) continue;
        features.push({
          type: "Feature",
          geometry: { type: "Point", coordinates: [p[0]!, p[1]!] },
          properties: { ...properties, ring, index },
        });
      }
    });
  }
  return { type: "FeatureCollection", features };
}

/** A point feature collection (the error marker), unwrapped to the same world copy as the geometry. */
export function markerAt(location: readonly [number, number] | null | undefined, ref: number | null): FeatureCollection<Point> {
  if (!location || !Number.isFinite(location[0]) || !Number.isFinite(location[1])) return { type: "FeatureCollection", features: [] };
  const x = ref === null ? location[0] : nearestCopy(location[0], ref);
  return {
    type: "FeatureCollection",
    features: [{ type: "Feature", geometry: { type: "Point", coordinates: [x, location[1]] }, properties: {} }],
  };
}

/**
 * Basemap polygons (Natural Earth through topojson-client) made drawable: rings unwrapped so countries on the
 * antimeridian (Russia, Fiji) do not streak across the map, latitudes clamped so Antarctica stays finite.
 */
export function prepareBasemap(fc: FeatureCollection): FeatureCollection<Polygon | MultiPolygon> {
  const ring = (r: Position[]): Position[] => {
    const ref = r[0]?.[0] ?? 0;
    return unwrapPath(r, ref).map((p) => [p[0]!, Math.max(-MAX_MERCATOR_LAT, Math.min(MAX_MERCATOR_LAT, p[1]!))]);
  };
  const features: Feature<Polygon | MultiPolygon>[] = [];
  for (const f of fc.features) {
    const g = f.geometry;
    if (g?.type === "Polygon")
      features.push({ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: g.coordinates.map(ring) } });
    else if (g?.type === "MultiPolygon") {
      features.push({
        type: "Feature",
        properties: {},
        geometry: { type: "MultiPolygon", coordinates: g.coordinates.map((p) => p.map(ring)) },
      });
    }
  }
  return { type: "FeatureCollection", features };
}

export const EMPTY_COLLECTION: FeatureCollection = { type: "FeatureCollection", features: [] };
