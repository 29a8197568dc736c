import type { Feature, FeatureCollection } from "geojson";
import type { ExpressionSpecification, LayerSpecification } from "maplibre-gl";
import type { Geometry } from "@/lib/spatial/geojson";
import { EMPTY_COLLECTION, linesOf, markerAt, partsOf, verticesOf } from "@/lib/spatial/display";
import type { SourceDef } from "./map-view";

// Sources and layers for the detail page's maps. The received geometry is drawn as its rings (lines) and
// vertices (circles) — a bowtie has zero area and MapLibre fills nothing for it — with the error location
// marked; the repaired geometry is filled, each part in its own colour so a split into parts is visible.

const RECEIVED = "received";
type Role = "fill" | "line" | "vertex" | "marker" | "crossing";
const role = (r: Role): ExpressionSpecification => ["==", ["get", "role"], r];

export const PART_COLOURS = ["#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2"];
// The same hues a step lighter, for the dark basemap (slate-800 land): the -600s fall under 3:1 against it.
const PART_COLOURS_DARK = ["#60a5fa", "#fbbf24", "#34d399", "#f472b6", "#a78bfa", "#22d3ee"];

function byPart(dark: boolean): ExpressionSpecification {
  const c = dark ? PART_COLOURS_DARK : PART_COLOURS;
  return ["match", ["%", ["get", "part"], c.length], 0, c[0]!, 1, c[1]!, 2, c[2]!, 3, c[3]!, 4, c[4]!, c[5]!];
}

// The received geometry's red: red-700 on the light basemap, red-400 on the dark one.
const receivedRed = (dark: boolean) => (dark ? "#f87171" : "#b91c1c");

function withRole(fc: FeatureCollection, role: Role): Feature[] {
  return fc.features.map((f) => ({ ...f, properties: { ...f.properties, role } }));
}

/**
 * One source for everything the received map draws, each feature tagged with the layer that draws it. Why not one
 * source per layer: every GeoJSON source is its own worker job and its own tile, and each tile that arrives is one
 * more frame; with software compositing every frame that changed a canvas reads it back from the GPU process
 * (GLES2::ReadPixels, a visible part of the time between a row click and both maps drawn), and
 * four sources cost up to four such frames and four worker jobs before the first 'idle'.
 */
export function receivedSources(
  geometry: Geometry | null,
  location: readonly [number, number] | null,
  ref: number | null,
  opts: { fill?: boolean; crossings?: readonly (readonly [number, number])[] } = {},
): Record<string, SourceDef> {
  // Only a valid geometry is filled: MapLibre triangulates an invalid ring (a star, a hole outside its shell) into
  // a fill that covers what the ring does not enclose.
  const features = [
    ...(geometry && opts.fill !== false ? withRole(partsOf(geometry), "fill") : []),
    ...(geometry ? withRole(linesOf(geometry), "line") : []),
    ...(geometry ? withRole(verticesOf(geometry), "vertex") : []),
    ...withRole(markerAt(location, ref), "marker"),
    // Every point where the boundary crosses itself (already in the display's longitudes): GEOS names only one.
    ...(opts.crossings ?? []).map((c): Feature => ({
      type: "Feature",
      geometry: { type: "Point", coordinates: [c[0], c[1]] },
      properties: { role: "crossing" },
    })),
  ];
  return { [RECEIVED]: { data: { type: "FeatureCollection", features } } };
}

export function repairedSources(geometry: Geometry | null): Record<string, SourceDef> {
  return { "repaired-parts": { data: geometry ? partsOf(geometry) : EMPTY_COLLECTION } };
}

export function receivedLayers(opts: { dashed?: boolean; dark?: boolean } = {}): LayerSpecification[] {
  const red = receivedRed(opts.dark ?? false);
  return [
    {
      id: "received-fill",
      type: "fill",
      source: RECEIVED,
      filter: ["all", role("fill"), ["==", ["get", "kind"], "polygon"]],
      paint: { "fill-color": "#dc2626", "fill-opacity": opts.dashed ? 0 : 0.08 },
    },
    {
      id: "received-lines",
      type: "line",
      source: RECEIVED,
      filter: role("line"),
      paint: { "line-color": red, "line-width": 2, ...(opts.dashed ? { "line-dasharray": [2, 1.5] } : {}) },
    },
    {
      id: "received-vertices",
      type: "circle",
      source: RECEIVED,
      filter: role("vertex"),
      paint: {
        "circle-radius": 4,
        "circle-color": opts.dark ? "#0f172a" : "#ffffff",
        "circle-stroke-color": red,
        "circle-stroke-width": 2,
      },
    },
    {
      id: "error-marker",
      type: "circle",
      source: RECEIVED,
      filter: role("marker"),
      paint: {
        "circle-radius": 9,
        "circle-color": "rgba(250, 204, 21, 0.35)",
        "circle-stroke-color": "#a16207",
        "circle-stroke-width": 2.5,
      },
    },
    {
      // Small hollow rings: a star's many crossings lie close together around its centre, and filled rings the size
      // of the one error marker covered that centre at the zoom the map opens at. They grow as the map zooms in.
      id: "crossing-marker",
      type: "circle",
      source: RECEIVED,
      filter: role("crossing"),
      paint: {
        "circle-radius": CROSSING_RADIUS,
        "circle-opacity": 0,
        "circle-stroke-color": opts.dark ? "#facc15" : "#a16207",
        "circle-stroke-width": 1.5,
      },
    },
  ];
}

/** A crossing's ring: 3 px at world zooms, 6 px from street level on. */
export const CROSSING_RADIUS: ExpressionSpecification = ["interpolate", ["linear"], ["zoom"], 10, 3, 18, 6];

export function repairedLayers(opts: { dark?: boolean } = {}): LayerSpecification[] {
  const parts = byPart(opts.dark ?? false);
  return [
    {
      id: "repaired-fill",
      type: "fill",
      source: "repaired-parts",
      filter: ["==", ["get", "kind"], "polygon"],
      paint: { "fill-color": parts, "fill-opacity": 0.45 },
    },
    {
      id: "repaired-outline",
      type: "line",
      source: "repaired-parts",
      filter: ["!=", ["get", "kind"], "point"],
      paint: { "line-color": parts, "line-width": 2 },
    },
    {
      id: "repaired-points",
      type: "circle",
      source: "repaired-parts",
      filter: ["==", ["get", "kind"], "point"],
      paint: { "circle-radius": 5, "circle-color": parts, "circle-stroke-color": "#ffffff", "circle-stroke-width": 1.5 },
    },
  ];
}
