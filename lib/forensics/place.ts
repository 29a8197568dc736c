// A place to look in: a box drawn on the map, or a point and a radius. Records carry their geometry's bounding
// box (core PostgreSQL `box`, GiST-indexed; PostGIS is not in the embedded server), so a radius search is the
// enclosing box (index) refined by the great-circle distance from the point to the nearest point of the box.

export type Place =
  | { type: "bbox"; bbox: [number, number, number, number] }
  | { type: "near"; lon: number; lat: number; radiusKm: number };

const EARTH_RADIUS_KM = 6371.0088; // mean radius (IUGG)
const KM_PER_DEGREE_LAT = 111.32;

/** The box enclosing the place, [minLon, minLat, maxLon, maxLat]. */
export function placeBox(place: Place): [number, number, number, number] {
  if (place.type === "bbox") return place.bbox;
  const dLat = place.radiusKm / KM_PER_DEGREE_LAT;
  // A circle around a pole spans every longitude; elsewhere a degree of longitude shrinks with cos(lat).
  const polar = place.lat + dLat >= 90 || place.lat - dLat <= -90;
  const dLon = polar ? 180 : Math.min(180, place.radiusKm / (KM_PER_DEGREE_LAT * Math.cos((place.lat * Math.PI) / 180)));
  return [
    Math.max(-180, place.lon - dLon),
    Math.max(-90, place.lat - dLat),
    Math.min(180, place.lon + dLon),
    Math.min(90, place.lat + dLat),
  ];
}

/** Great-circle distance in km (haversine); the SQL in placeClause computes the same. */
export function distanceKm(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const h = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * SQL for "record d is in the place". `indexable: false` leaves out the box overlap (the caller writes its own,
 * non-indexable form when walking another index) and keeps only the distance refinement.
 */
export function placeClause(place: Place, p: (v: unknown) => string, opts: { indexable?: boolean } = {}): string {
  const parts: string[] = [];
  if (opts.indexable !== false) {
    const [x1, y1, x2, y2] = placeBox(place);
    parts.push(`d.bbox && box(point(${p(x1)}, ${p(y1)}), point(${p(x2)}, ${p(y2)}))`);
  }
  if (place.type === "near") {
    const lon = p(place.lon);
    const lat = p(place.lat);
    // box[0] is the upper-right corner, box[1] the lower-left one; clamp the point into the box.
    const clon = `greatest((d.bbox[1])[0], least(${lon}::float8, (d.bbox[0])[0]))`;
    const clat = `greatest((d.bbox[1])[1], least(${lat}::float8, (d.bbox[0])[1]))`;
    parts.push(
      `2 * ${EARTH_RADIUS_KM} * asin(least(1, sqrt(power(sin(radians(${clat} - ${lat}::float8) / 2), 2)
        + cos(radians(${lat}::float8)) * cos(radians(${clat})) * power(sin(radians(${clon} - ${lon}::float8) / 2), 2)))) <= ${p(place.radiusKm)}`,
    );
  }
  return parts.length ? parts.join(" AND ") : "TRUE";
}
