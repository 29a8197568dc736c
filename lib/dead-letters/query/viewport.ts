import type { BBox } from "../../spatial/geojson";

// A map viewport as the boxes it covers on the one world the database stores. The list's map can be scrolled
// past ±180° (MapLibre draws world copies; the view's west/east then run from -540 to 540), so a view over the
// Pacific is e.g. [170, -20, 190, 20]: the records it shows lie in [170, 180] and in [-180, -170]. Clamping
// that view to [170, 180] silently dropped everything on the far side of the antimeridian.

/** The viewport's longitudes folded onto [-180, 180]: one box, or two when it spans ±180°. */
export function viewportBoxes([west, south, east, north]: BBox): BBox[] {
  if (east - west >= 360) return [[-180, south, 180, north]];
  const turns = Math.floor((west + 180) / 360); // whole turns that move west into [-180, 180)
  const w = turns === 0 ? west : west - 360 * turns;
  const e = turns === 0 ? east : east - 360 * turns;
  if (e <= 180) return [[w, south, e, north]];
  return [
    [w, south, 180, north],
    [-180, south, e - 360, north],
  ];
}

/**
 * The boxes to overlap with stored boxes (stored-box.ts) to find what a viewport shows: its boxes on
 * [-180, 180], plus, for a view that stops short of 180, the same box shifted by +360, which meets the part of
 * an unwrapped box east of -180 (Fiji's 178..182 is in [-179, -172] as 181..182 is in [181, 188]). A view that
 * reaches 180 needs no copy: every unwrapped box contains 180. At most two boxes either way.
 */
export function searchBoxes(view: BBox): BBox[] {
  const boxes = viewportBoxes(view);
  const only = boxes[0];
  if (boxes.length !== 1 || !only || only[2] >= 180) return boxes;
  const [x1, y1, x2, y2] = only;
  return [only, [x1 + 360, y1, x2 + 360, y2]];
}
