import { viewportBranches, viewportClause } from "../dead-letters/query/where";

// A place to look in: a box drawn on the map, or a point and a radius. Records carry their geometry's bounding
// box (core PostgreSQL `box`, GiST-indexed; PostGIS is not in the embedded server), so a radius search is the
// enclosing box (index) refined by the great-circle distance from the point to the nearest point of the box.
// Both are searched like the list's map view: across ±180° and against boxes stored unwrapped past 180
// (lib/dead-letters/store/stored-box.ts, lib/dead-letters/query/viewport.ts).

export type Place = { type: "bbox"; bbox: [number, number, number, number] } | { type: "near"; lon: number; lat: number; radiusKm: number };

const EARTH_RADIUS_KM = 6371.0088; // mean radius (IUGG)
const KM_PER_DEGREE_LAT = 111.32;

/**
 * The box enclosing the place, [minLon, minLat, maxLon, maxLat]. Its longitudes may run past ±180 as a map
 * view's do (a radius around Suva reaches -179.9 as 180.1); searchBoxes folds them.
 */
export function placeBox(place: Place): [number, number, number, number] {
  if (place.type === "bbox") return place.bbox;
  const dLat = place.radiusKm / KM_PER_DEGREE_LAT;
  // A circle around a pole spans every longitude; elsewhere a degree of longitude shrinks with cos(lat).
  const polar = place.lat + dLat >= 90 || place.lat - dLat <= -90;
  const dLon = polar ? 180 : Math.min(180, place.radiusKm / (KM_PER_DEGREE_LAT * Math.cos((place.lat * Math.PI) / 180)));
  return [place.lon - dLon, Math.max(-90, place.lat - dLat), place.lon + dLon, Math.min(90, place.lat + dLat)];
}

/**
 * Degrees of longitude from `lon` (in [-180, 180]) to the nearest longitude of a stored box [x1, x2] (x2 up to
 * 540 when unwrapped), going either way round the globe; 0 inside it. (Clamping `lon` into the box would measure 179.9 to the box
 * -179.5..-179 as 358.9° instead of 0.6°.) placeClause computes the same in SQL.
 */
export function lonGap(lon: number, x1: number, x2: number): number {
  if ((lon >= x1 && lon <= x2) || (lon + 360 >= x1 && lon + 360 <= x2)) return 0;
  const round = (d: number) => {
    const m = Math.abs(d) % 360;
    return Math.min(m, 360 - m);
  };
  return Math.min(round(lon - x1), round(lon - x2));
}

/** Great-circle distance in km (haversine); the SQL in placeClause computes the same. */
export function distanceKm(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * SQL for "record d is in the place". `indexable: false` leaves out the box overlap (the caller writes its own,
 * non-indexable form when walking another index) and keeps only the distance refinement.
 */
export function placeClause(place: Place, p: (v: unknown) => string, opts: { indexable?: boolean } = {}): string {
  const parts: string[] = [];
  if (opts.indexable !== false) parts.push(viewportClause(placeBox(place), p));
  const distance = distanceClause(place, p);
  if (distance) parts.push(distance);
  return parts.length ? parts.join(" AND ") : "TRUE";
}

/**
 * The place as disjoint conditions for a UNION ALL, one indexable box overlap each (see buildWhereBranches in
 * lib/dead-letters/query/where.ts: an OR of overlaps cannot be read index-only).
 */
export function placeBranches(place: Place, p: (v: unknown) => string): string[] {
  const branches = viewportBranches(placeBox(place), p);
  const distance = distanceClause(place, p);
  return distance ? branches.map((b) => `${b} AND ${distance}`) : branches;
}

function distanceClause(place: Place, p: (v: unknown) => string): string | null {
  if (place.type !== "near") return null;
  const lon = p(place.lon);
  const lat = p(place.lat);
  // box[0] is the upper-right corner, box[1] the lower-left one. The latitude is clamped into the box; the
  // longitude gap is lonGap's, around the globe.
  const [x1, x2] = ["(d.bbox[1])[0]", "(d.bbox[0])[0]"];
  const round = (x: string) =>
    `least(mod(abs(${lon}::float8 - ${x})::numeric, 360), 360 - mod(abs(${lon}::float8 - ${x})::numeric, 360))::float8`;
  const gap = `(CASE WHEN ${lon}::float8 BETWEEN ${x1} AND ${x2} OR ${lon}::float8 + 360 BETWEEN ${x1} AND ${x2} THEN 0
    ELSE least(${round(x1)}, ${round(x2)}) END)`;
  const clat = `greatest((d.bbox[1])[1], least(${lat}::float8, (d.bbox[0])[1]))`;
  return `2 * ${EARTH_RADIUS_KM} * asin(least(1, sqrt(power(sin(radians(${clat} - ${lat}::float8) / 2), 2)
        + cos(radians(${lat}::float8)) * cos(radians(${clat})) * power(sin(radians(${gap}) / 2), 2)))) <= ${p(place.radiusKm)}`;
}
