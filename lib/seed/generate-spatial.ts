import type { Rng } from "./rng";
import { ANTIMERIDIAN_PLACES, PLACES, SPATIAL_SOURCES } from "./places";

// Spatial dead letters as a GeoJSON pipeline's Python DLQ handler would store them, one scenario per real
// failure kind. Reasons are worded the way GEOS/shapely and HTTP sinks report them.

type Pos = [number, number];
type Json = Record<string, unknown>;

const r6 = (n: number) => Math.round(n * 1e6) / 1e6;
const ring = (pts: Pos[]): Pos[] => pts.map(([x, y]) => [r6(x), r6(y)]);

function square(x: number, y: number, d: number): Pos[] {
  return ring([
    [x, y],
    [x + d, y],
    [x + d, y + d],
    [x, y + d],
    [x, y],
  ]);
}

const pointText = ([x, y]: Pos) => `${r6(x)} ${r6(y)}`;

interface Scenario {
  weight: number;
  make(rng: Rng, x: number, y: number, d: number): { geometry: unknown; reason: string; crs?: string; noKey?: boolean; applied?: boolean };
}

const toMercator = ([lon, lat]: Pos): Pos => [
  Math.round(((lon * 20037508.34) / 180) * 100) / 100,
  Math.round(Math.log(Math.tan(((90 + lat) * Math.PI) / 360)) * 6378137 * 100) / 100,
];

export const SPATIAL_SCENARIOS: Record<string, Scenario> = {
  bowtie: {
    weight: 12,
    make: (_r, x, y, d) => {
      const c: Pos = [x + d / 2, y + d / 2];
      return {
        geometry: {
          type: "Polygon",
          coordinates: [
            ring([
              [x, y],
              [x + d, y + d],
              [x + d, y],
              [x, y + d],
              [x, y],
            ]),
          ],
        },
        reason: `TopologyException: Input geom 0 is invalid: Self-intersection at or near point ${pointText(c)}`,
      };
    },
  },
  star: {
    weight: 6,
    make: (_r, x, y, d) => {
      const pts: Pos[] = [0, 2, 4, 1, 3, 0].map((k) => {
        const a = Math.PI / 2 + (k * 2 * Math.PI) / 5;
        return [x + d * Math.cos(a), y + d * Math.sin(a)];
      });
      return {
        geometry: { type: "Polygon", coordinates: [ring(pts)] },
        reason: "shapely.errors.GEOSException: IllegalArgumentException: Invalid polygon: Self-intersection",
      };
    },
  },
  spike: {
    weight: 8,
    make: (_r, x, y, d) => {
      const m = y + d / 2;
      return {
        geometry: {
          type: "Polygon",
          coordinates: [
            ring([
              [x, y],
              [x + d, y],
              [x + d, m],
              [x + 2 * d, m],
              [x + d, m],
              [x + d, y + d],
              [x, y + d],
              [x, y],
            ]),
          ],
        },
        reason: `Ring Self-intersection at or near point ${pointText([x + d, m])}`,
      };
    },
  },
  unclosed_ring: {
    weight: 6,
    make: (_r, x, y, d) => ({
      geometry: { type: "Polygon", coordinates: [square(x, y, d).slice(0, 4)] },
      reason: "IllegalArgumentException: Points of LinearRing do not form a closed linestring",
    }),
  },
  repeated_points: {
    weight: 5,
    make: (_r, x, y, d) => {
      const s = square(x, y, d);
      return {
        geometry: { type: "Polygon", coordinates: [[s[0], s[1], s[1], s[1], s[2], s[3], s[3], s[4]]] },
        reason: "ValidationError: ring has 3 repeated consecutive vertices (strict mode)",
      };
    },
  },
  hole_outside_shell: {
    weight: 6,
    make: (_r, x, y, d) => ({
      geometry: { type: "Polygon", coordinates: [square(x, y, d), square(x + 2 * d, y, d / 3).reverse()] },
      reason: `Hole lies outside shell at or near point ${pointText([x + 2 * d, y])}`,
    }),
  },
  nested_shells: {
    weight: 5,
    make: (_r, x, y, d) => ({
      geometry: { type: "MultiPolygon", coordinates: [[square(x, y, d)], [square(x + d / 4, y + d / 4, d / 2)]] },
      reason: `Nested shells at or near point ${pointText([x + d / 4, y + d / 4])}`,
    }),
  },
  overlapping_parts: {
    weight: 4,
    make: (_r, x, y, d) => ({
      geometry: { type: "MultiPolygon", coordinates: [[square(x, y, d)], [square(x + d / 2, y + d / 2, d)]] },
      reason: `TopologyException: Input geom 0 is invalid: Self-intersection at or near point ${pointText([x + d, y + d / 2])}`,
    }),
  },
  antimeridian: {
    weight: 4,
    make: (rng) => {
      const p = rng.pick(ANTIMERIDIAN_PLACES);
      const w = 0.05 + rng.float() * 0.1;
      const h = 0.05 + rng.float() * 0.1;
      const y = p.lat;
      return {
        geometry: {
          type: "Polygon",
          coordinates: [
            ring([
              [179.9, y],
              [-179.9 + w / 10, y],
              [-179.9 + w / 10, y + h],
              [179.9, y + h],
              [179.9, y],
            ]),
          ],
        },
        reason: "ValueError: polygon spans more than 180 degrees of longitude (antimeridian crossing?)",
      };
    },
  },
  web_mercator: {
    weight: 8,
    make: (_r, x, y, d) => ({
      geometry: { type: "Polygon", coordinates: [square(x, y, d).map(toMercator)] },
      crs: "EPSG:3857",
      reason: `ValueError: latitude ${toMercator([x, y])[1]} out of range [-90, 90] (coordinates look like EPSG:3857 metres)`,
    }),
  },
  null_geometry: {
    weight: 4,
    make: () => ({ geometry: null, reason: "AttributeError: 'NoneType' object has no attribute 'is_valid' (feature has null geometry)" }),
  },
  unparseable: {
    weight: 4,
    make: (rng, x, y, d) =>
      rng.chance(0.5)
        ? { geometry: { type: "Polygn", coordinates: [square(x, y, d)] }, reason: "GeoJSONDecodeError: unknown geometry type 'Polygn'" }
        : {
            geometry: { type: "Polygon", coordinates: `POLYGON((${square(x, y, d).map(pointText).join(", ")}))` },
            reason: "TypeError: coordinates must be an array, got str (WKT in a GeoJSON field?)",
          },
  },
  downstream_503: {
    weight: 12,
    make: (rng, x, y, d) => ({
      geometry: { type: "Polygon", coordinates: [square(x, y, d)] },
      reason: `HTTP 503 Service Unavailable from tiles-ingest (attempt ${rng.int(1, 3)})`,
    }),
  },
  already_applied: {
    weight: 6,
    make: (_r, x, y, d) => ({
      geometry: { type: "Polygon", coordinates: [square(x, y, d)] },
      reason: "ReadTimeout: no acknowledgement from geo-store within 30 s (the write may have been applied)",
      applied: true,
    }),
  },
  missing_key: {
    weight: 3,
    make: (_r, x, y, d) => ({
      geometry: { type: "Point", coordinates: [r6(x + d / 2), r6(y + d / 2)] },
      reason: "KeyError: 'idempotency_key' (producer lost the key before dead-lettering)",
      noKey: true,
    }),
  },
};

const TABLE = Object.entries(SPATIAL_SCENARIOS).flatMap(([name, s]) => Array<string>(s.weight).fill(name));

export interface GeneratedSpatial {
  envelope: Json;
  scenario: string;
  applied: boolean;
}

/** One spatial envelope; `i` makes keys unique, entities repeat so ordering per entity matters. */
export function generateSpatial(rng: Rng, i: number, baseMs: number, spanMs: number): GeneratedSpatial {
  const scenario = rng.pick(TABLE);
  const place = rng.pick(PLACES);
  const x = place.lon + (rng.float() - 0.5) * 0.2;
  const y = place.lat + (rng.float() - 0.5) * 0.2;
  const d = 0.0005 + rng.float() * 0.004;
  const made = (SPATIAL_SCENARIOS[scenario] as Scenario).make(rng, x, y, d);
  const entity = `${place.name}-parcel-${rng.int(1, 400)}`;
  const observedMs = baseMs + Math.floor(rng.float() * spanMs);
  const envelope: Json = {
    kind: "spatial",
    source: rng.pick(SPATIAL_SOURCES),
    ...(made.noKey ? {} : { idempotency_key: `sp-${rng.hex(8)}-${i.toString(36)}` }),
    // Python handlers store either epoch seconds or an ISO string; accept both as producers do.
    observed_at: rng.chance(0.5) ? Math.floor(observedMs / 1000) : new Date(observedMs).toISOString(),
    feature: { type: "Feature", id: entity, geometry: made.geometry, properties: { name: entity, surveyed_by: `crew-${rng.int(1, 12)}` } },
    dead_letter_reason: made.reason,
    replay_count: rng.chance(0.15) ? rng.int(1, 2) : 0,
    ...(made.crs ? { crs: made.crs } : {}),
    source_message_id: `msg-${rng.hex(12)}`,
  };
  return { envelope, scenario, applied: made.applied === true };
}
