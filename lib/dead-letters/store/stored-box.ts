import type { BBox } from "../../spatial/geojson";

// How a record's bounding box is kept in dead_letter.bbox. A PostgreSQL `box` knows nothing of longitudes
// wrapping: it orders its corners, so Fiji's RFC 7946 bbox [178, -17, -178, -16] (west > east: it crosses the
// antimeridian) became the 356°-wide box -178..178 and overlapped viewports anywhere at those latitudes. Such a
// box is stored unwrapped instead, east + 360: 178..182. Every stored box then has its west edge in
// [-180, 180] and its east edge in [west, 540), and the true extent of one reaching past 180 is
// [west, 180] ∪ [-180, east - 360]. Searches test both copies (searchBoxes in viewport.ts); the
// 20261130015000_unwrap_antimeridian_boxes migration converted the rows stored before.

/** The stored form of an RFC 7946 bbox: unwrapped (east + 360) when it crosses the antimeridian. */
export function storedBox([west, south, east, north]: BBox): BBox {
  return west <= east ? [west, south, east, north] : [west, south, east + 360, north];
}
