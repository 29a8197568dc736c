// Declared CRS -> EPSG:4326. Pure functions; proj4 does the projection math.
import proj4 from "proj4";
import { forEachPath, type Geometry } from "./geojson";

/** EPSG:4326, EPSG:3857, or a WGS 84 UTM zone (EPSG:32601–32660 north, EPSG:32701–32760 south). */
export type CanonicalCrs = `EPSG:${number}`;
export const DEFAULT_CRS: CanonicalCrs = "EPSG:4326";

/**
 * The EPSG codes accepted, by what they mean. 900913 and 3785 are Web Mercator's older codes; CRS84 (OGC) is
 * lon/lat WGS 84, i.e. what GeoJSON means by 4326 (whose official axis order is lat, lon: GeoJSON positions are
 * lon, lat whatever the producer called them, so both read the same).
 */
const EPSG_CODES: ReadonlyMap<number, CanonicalCrs> = new Map<number, CanonicalCrs>([
  [4326, "EPSG:4326"],
  [3857, "EPSG:3857"],
  [900913, "EPSG:3857"],
  [3785, "EPSG:3857"],
]);

export const SUPPORTED_CRS_NAMES: readonly string[] = [
  "EPSG:4326 (also CRS84, OGC:CRS84, urn:ogc:def:crs:OGC:1.3:CRS84)",
  "EPSG:3857 (also EPSG:900913, EPSG:3785)",
  "EPSG:32601–32660 and EPSG:32701–32760 (WGS 84 / UTM)",
  "each as EPSG:<code>, urn:ogc:def:crs:EPSG:[version]:<code> or http://www.opengis.net/def/crs/EPSG/0/<code>",
];

// The ways a CRS is named in the wild (compared case-insensitively): "EPSG:3857", the OGC URN with or without a
// version ("urn:ogc:def:crs:EPSG::3857", "urn:ogc:def:crs:EPSG:9.8.6:3857") and the OGC http URI
// ("http://www.opengis.net/def/crs/EPSG/0/3857"); for CRS84 the same forms under the OGC authority.
const EPSG_NAME = /^(?:epsg:|urn:ogc:def:crs:epsg:[0-9.]*:|https?:\/\/www\.opengis\.net\/def\/crs\/epsg\/[0-9.]+\/)(\d{1,7})$/;
const CRS84_NAME = /^(?:(?:ogc:)?crs84|urn:ogc:def:crs:ogc:[0-9.]*:crs84|https?:\/\/www\.opengis\.net\/def\/crs\/ogc\/[0-9.]+\/crs84)$/;

// WGS 84 / UTM zones: the projected CRSs field data most often arrives in. Their proj definition follows
// from the code alone (zone = code mod 100, 327xx = southern hemisphere), so no EPSG database is needed.
interface Utm {
  zone: number;
  south: boolean;
}

function utmOf(crs: CanonicalCrs): Utm | null {
  const code = Number(crs.slice("EPSG:".length));
  const zone = code % 100;
  const base = code - zone;
  if ((base !== 32600 && base !== 32700) || zone < 1 || zone > 60) return null;
  return { zone, south: base === 32700 };
}

/** The canonical CRS a (lower-cased, trimmed) name stands for, or null when it names none we can reproject from. */
function crsNamed(key: string): CanonicalCrs | null {
  if (CRS84_NAME.test(key)) return "EPSG:4326";
  const m = EPSG_NAME.exec(key);
  if (!m) return null;
  const code = Number(m[1]);
  const known = EPSG_CODES.get(code);
  if (known) return known;
  const utm: CanonicalCrs = `EPSG:${code}`;
  return utmOf(utm) ? utm : null;
}

export type CrsResult = { ok: true; crs: CanonicalCrs; declared: string } | { ok: false; message: string };

/**
 * Resolves a declared CRS: undefined/null means the default, a string is looked up among the aliases, and a
 * GeoJSON-2008 named-CRS object ({ type: "name", properties: { name } }) is unwrapped first because older
 * producers still emit it.
 */
export function resolveCrs(declared: unknown): CrsResult {
  if (declared === undefined || declared === null) return { ok: true, crs: DEFAULT_CRS, declared: DEFAULT_CRS };
  let name: unknown = declared;
  if (typeof declared === "object" && !Array.isArray(declared)) {
    const properties = (declared as { properties?: unknown }).properties;
    name = typeof properties === "object" && properties !== null ? (properties as { name?: unknown }).name : undefined;
  }
  if (typeof name !== "string") {
    return { ok: false, message: 'crs must be a string such as "EPSG:4326" or a named CRS object' };
  }
  const key = name.trim().toLowerCase();
  const crs = crsNamed(key);
  if (!crs) {
    return { ok: false, message: `unsupported CRS ${JSON.stringify(name)}; supported: ${SUPPORTED_CRS_NAMES.join(", ")}` };
  }
  return { ok: true, crs, declared: name };
}

/** Web Mercator's world square: ±π·6378137 m. */
const MERCATOR_X_MAX = 20037508.342789244;
/**
 * Producers clamp latitude at ±85.06° rather than the square's ±85.0511°, which puts y at up to ~20048966 m;
 * those values project back to sane latitudes, so they are accepted.
 */
const MERCATOR_Y_MAX = 20048966.11;
/** Absorbs floating-point noise at the edge (1 µm in 3857, ~1e-9° in 4326). */
const EPS_METERS = 1e-6;
const EPS_DEGREES = 1e-9;

export interface RangeProblem {
  reason: string;
  location: [number, number];
}

/** The first finite coordinate outside the valid range of the CRS, or null. Non-finite ones are validate.ts's. */
export function findOutOfRange(geometry: Geometry, crs: CanonicalCrs): RangeProblem | null {
  const range = cachedRangeOf(crs);
  let problem: RangeProblem | null = null;
  forEachPath(geometry, (path) => {
    if (problem) return;
    for (const p of path) {
      const x = p[0]!,
        y = p[1]!;
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      if (!range.contains(x, y)) {
        problem = { reason: `Coordinate (${x}, ${y}) is out of range for ${crs} (${range.limits})`, location: [x, y] };
        return;
      }
    }
  });
  return problem;
}

interface Range {
  contains(x: number, y: number): boolean;
  limits: string;
}

function symmetric(maxX: number, maxY: number, eps: number, axis: string, unit: string): Range {
  return {
    contains: (x, y) => Math.abs(x) <= maxX + eps && Math.abs(y) <= maxY + eps,
    limits: `${axis} limits ±${maxX}${unit}, ±${maxY}${unit}`,
  };
}

/**
 * UTM eastings stay within 0–1,000,000 m even well outside the zone (166–834 km at the equator); northings
 * run 0–9,400,000 m north (84°N) and 1,000,000–10,000,000 m south (80°S and beyond, false northing 10,000 km).
 */
const ranges = new Map<CanonicalCrs, Range>();

/** rangeOf, once per CRS (asked for every record). */
function cachedRangeOf(crs: CanonicalCrs): Range {
  let range = ranges.get(crs);
  if (!range) ranges.set(crs, (range = rangeOf(crs)));
  return range;
}

function rangeOf(crs: CanonicalCrs): Range {
  if (crs === "EPSG:4326") return symmetric(180, 90, EPS_DEGREES, "longitude/latitude", "°");
  const utm = utmOf(crs);
  if (!utm) return symmetric(MERCATOR_X_MAX, MERCATOR_Y_MAX, EPS_METERS, "x/y", " m");
  const [minY, maxY] = utm.south ? [1_000_000, 10_000_000] : [0, 9_400_000];
  return {
    contains: (x, y) => x >= 0 && x <= 1_000_000 && y >= minY && y <= maxY,
    limits: `UTM zone ${utm.zone}${utm.south ? "S" : "N"}: x 0–1000000 m, y ${minY}–${maxY} m`,
  };
}

type Forward = (xy: [number, number]) => [number, number];
const converters = new Map<CanonicalCrs, Forward>();

function converterTo4326(crs: CanonicalCrs): Forward {
  let forward = converters.get(crs);
  if (!forward) {
    const utm = utmOf(crs);
    const from = utm ? `+proj=utm +zone=${utm.zone}${utm.south ? " +south" : ""} +datum=WGS84 +units=m +no_defs` : crs;
    const converter = proj4(from, "EPSG:4326");
    forward = (xy) => converter.forward(xy);
    converters.set(crs, forward);
  }
  return forward;
}

const clamp = (value: number, limit: number): number => Math.max(-limit, Math.min(limit, value));

/**
 * Reprojects the geometry to EPSG:4326 in place (the parser hands out fresh arrays) and returns it.
 * Call findOutOfRange first; non-finite coordinates are left untouched for validate.ts to report.
 * Results are clamped to ±180/±90 because x = ±20037508.342789244 comes back as ±180.00000000000003.
 */
export function toWgs84(geometry: Geometry, crs: CanonicalCrs): Geometry {
  if (crs === "EPSG:4326") return geometry;
  const forward = converterTo4326(crs);
  forEachPath(geometry, (path) => {
    for (const p of path) {
      if (!Number.isFinite(p[0]!) || !Number.isFinite(p[1]!)) continue;
      const [lon, lat] = forward([p[0]!, p[1]!]);
      p[0] = clamp(lon, 180);
      p[1] = clamp(lat, 90);
    }
  });
  return geometry;
}
