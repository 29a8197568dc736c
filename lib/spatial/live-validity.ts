// Geometry validity in the browser, as the analyst edits: jsts's IsValidOp (a port of JTS 1.17) gives the same
// kind of verdict and location GEOS gives on the server ("Self-intersection at or near point (0.5, 0.5)"). It is
// a preview only — the server re-validates with GEOS on save and its answer is the one stored. jsts files are
// imported by path: the package's index pulls in every module.
import GeometryFactory from "jsts/org/locationtech/jts/geom/GeometryFactory.js";
import GeoJSONReader from "jsts/org/locationtech/jts/io/GeoJSONReader.js";
import IsValidOp from "jsts/org/locationtech/jts/operation/valid/IsValidOp.js";
import { formatCoordinate } from "./format-coordinate";
import { parseGeometry } from "./geojson";

export interface LiveValidity {
  /** null when the value is not a geometry at all */
  valid: boolean | null;
  reason: string | null;
  location: [number, number] | null;
}

let reader: GeoJSONReader | null = null;

export function liveValidity(value: unknown): LiveValidity {
  if (value === null || value === undefined) return { valid: null, reason: "Geometry is null", location: null };
  const parsed = parseGeometry(value);
  if (!parsed.ok) return { valid: null, reason: parsed.reason, location: null };
  reader ??= new GeoJSONReader(new GeometryFactory());
  try {
    const error = new IsValidOp(reader.read(parsed.geometry)).getValidationError();
    if (!error) return { valid: true, reason: null, location: null };
    const c = error.getCoordinate() as { x: number; y: number } | null;
    const location: [number, number] | null = c && Number.isFinite(c.x) && Number.isFinite(c.y) ? [c.x, c.y] : null;
    const where = location ? ` at or near point (${formatCoordinate(location[0])}, ${formatCoordinate(location[1])})` : "";
    return { valid: false, reason: `${error.getMessage()}${where}`, location };
  } catch (err) {
    // jsts refuses some shapes outright while building them (an unclosed ring, a one-point line).
    return { valid: false, reason: err instanceof Error ? err.message : String(err), location: null };
  }
}
