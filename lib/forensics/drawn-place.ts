// A place drawn on the lookup map (a rectangle or a point), turned into the lookup's query parameters, and back
// into shapes to show. Pure and client-safe: the map component only passes coordinates through.
//
// MapLibre repeats the world sideways, so a shape drawn on a copy has longitudes beyond ±180°. A box is brought
// back so its west edge is on the main copy; a box that straddles the antimeridian keeps its east edge past 180
// (e.g. 170..200 over Fiji), which the lookup API searches on both sides (lib/dead-letters/query/viewport.ts), so
// nothing drawn is cut away.

import { formatCoordinate } from "@/lib/spatial/format-coordinate";

export type DrawnPlace = { type: "bbox"; bbox: [number, number, number, number] } | { type: "near"; lon: number; lat: number };

/** Rounded as every coordinate shown is (format-coordinate.ts): the box is shown in the form as it is sent. */
const round = (n: number) => Number(formatCoordinate(n));
const clampLat = (lat: number) => Math.max(-90, Math.min(90, lat));

/** A longitude on any world copy, on the main one: 190 → -170, -181 → 179. */
export function wrapLon(lon: number): number {
  const w = ((((lon + 180) % 360) + 360) % 360) - 180;
  return w === -180 && lon > 0 ? 180 : w;
}

/** The box covering a drawn ring (or any positions), in EPSG:4326 on the main world copy; null for no positions. */
export function boxOfPositions(positions: readonly (readonly number[])[]): [number, number, number, number] | null {
  const xs = positions.map((p) => p[0]).filter((x): x is number => Number.isFinite(x));
  const ys = positions.map((p) => p[1]).filter((y): y is number => Number.isFinite(y));
  if (xs.length === 0 || ys.length === 0) return null;
  // Loops, not Math.min(...xs): a spread of a few hundred thousand numbers overflows the call stack.
  let [x1, x2] = range(xs);
  if (x2 - x1 >= 360) {
    x1 = -180;
    x2 = 180;
  } else {
    // Shift the box so its west edge is on the main copy; its east edge may pass 180 (at most 540).
    const shift = wrapLon(x1) - x1;
    x1 += shift;
    x2 += shift;
  }
  const [y1, y2] = range(ys);
  return [round(x1), round(clampLat(y1)), round(x2), round(clampLat(y2))];
}

function range(values: number[]): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return [min, max];
}

/** A drawn point on the main world copy. */
export function pointOf(position: readonly number[]): { lon: number; lat: number } | null {
  const [lon, lat] = position;
  if (lon === undefined || lat === undefined || !Number.isFinite(lon) || !Number.isFinite(lat)) return null;
  return { lon: round(wrapLon(lon)), lat: round(clampLat(lat)) };
}

/** The place as lookup query parameters: bbox=minLon,minLat,maxLon,maxLat or near=lon,lat. */
export function placeParams(place: DrawnPlace): { bbox: string; near: string } {
  return place.type === "bbox" ? { bbox: place.bbox.join(","), near: "" } : { bbox: "", near: `${place.lon},${place.lat}` };
}

const numbers = (s: string) => s.split(",").map((n) => (n.trim() === "" ? NaN : Number(n)));

/** The form's bbox / near text as a place to draw, or null while it is incomplete or invalid. */
export function placeFromParams(bbox: string, near: string): DrawnPlace | null {
  if (bbox.trim()) {
    const [x1, y1, x2, y2, ...rest] = numbers(bbox);
    if (rest.length || ![x1, y1, x2, y2].every((n) => n !== undefined && Number.isFinite(n))) return null;
    if (x1! > x2! || y1! > y2! || y1! < -90 || y2! > 90) return null;
    return { type: "bbox", bbox: [x1!, y1!, x2!, y2!] };
  }
  if (near.trim()) {
    const [lon, lat, ...rest] = numbers(near);
    if (rest.length || lon === undefined || lat === undefined || !Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lat) > 90)
      return null;
    return { type: "near", lon, lat };
  }
  return null;
}

/** The closed ring of a box, counter-clockwise from the south-west corner. */
export function boxRing([x1, y1, x2, y2]: readonly [number, number, number, number]): [number, number][] {
  return [
    [x1, y1],
    [x2, y1],
    [x2, y2],
    [x1, y2],
    [x1, y1],
  ];
}

const EARTH_RADIUS_KM = 6371.0088;

/**
 * The circle of `radiusKm` around a point as a closed ring of `steps` positions (great-circle destinations, so
 * it is the circle the radius search uses, not a box). Longitudes stay continuous around the point, so a circle
 * crossing ±180° is drawn in one piece.
 */
export function circleRing(lon: number, lat: number, radiusKm: number, steps = 64): [number, number][] {
  const rad = Math.PI / 180;
  const d = radiusKm / EARTH_RADIUS_KM;
  const φ1 = lat * rad;
  const ring: [number, number][] = [];
  for (let i = 0; i < steps; i++) {
    const θ = (2 * Math.PI * i) / steps;
    const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(θ));
    const dλ = Math.atan2(Math.sin(θ) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
    ring.push([round(lon + dλ / rad), round(φ2 / rad)]);
  }
  ring.push(ring[0]!);
  return ring;
}
