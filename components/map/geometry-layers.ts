import type { ExpressionSpecification, LayerSpecification } from "maplibre-gl";
import type { Geometry } from "@/lib/spatial/geojson";
import { EMPTY_COLLECTION, linesOf, markerAt, partsOf, verticesOf } from "@/lib/spatial/display";
import type { SourceDef } from "./map-view";

// Sources and layers for the detail page's maps. The received geometry is drawn as its rings (lines) and
// vertices (circles) — a bowtie has zero area and MapLibre fills nothing for it — with the error location
// marked; the repaired geometry is filled, each part in its own colour so a split into parts is visible.

export const PART_COLOURS = ["#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2"];

const byPart: ExpressionSpecification = ["match", ["%", ["get", "part"], PART_COLOURS.length],
  0, PART_COLOURS[0]!, 1, PART_COLOURS[1]!, 2, PART_COLOURS[2]!, 3, PART_COLOURS[3]!, 4, PART_COLOURS[4]!, PART_COLOURS[5]!];

export function receivedSources(geometry: Geometry | null, location: readonly [number, number] | null, ref: number | null): Record<string, SourceDef> {
  return {
    "received-lines": { data: geometry ? linesOf(geometry) : EMPTY_COLLECTION },
    "received-vertices": { data: geometry ? verticesOf(geometry) : EMPTY_COLLECTION },
    "received-fill": { data: geometry ? partsOf(geometry) : EMPTY_COLLECTION },
    "error-marker": { data: markerAt(location, ref) },
  };
}

export function repairedSources(geometry: Geometry | null): Record<string, SourceDef> {
  return { "repaired-parts": { data: geometry ? partsOf(geometry) : EMPTY_COLLECTION } };
}

export function receivedLayers(opts: { dashed?: boolean } = {}): LayerSpecification[] {
  return [
    { id: "received-fill", type: "fill", source: "received-fill", filter: ["==", ["get", "kind"], "polygon"], paint: { "fill-color": "#dc2626", "fill-opacity": opts.dashed ? 0 : 0.08 } },
    {
      id: "received-lines", type: "line", source: "received-lines",
      paint: { "line-color": "#b91c1c", "line-width": 2, ...(opts.dashed ? { "line-dasharray": [2, 1.5] } : {}) },
    },
    {
      id: "received-vertices", type: "circle", source: "received-vertices",
      paint: { "circle-radius": 4, "circle-color": "#ffffff", "circle-stroke-color": "#b91c1c", "circle-stroke-width": 2 },
    },
    {
      id: "error-marker", type: "circle", source: "error-marker",
      paint: { "circle-radius": 9, "circle-color": "rgba(250, 204, 21, 0.35)", "circle-stroke-color": "#a16207", "circle-stroke-width": 2.5 },
    },
  ];
}

export function repairedLayers(): LayerSpecification[] {
  return [
    { id: "repaired-fill", type: "fill", source: "repaired-parts", filter: ["==", ["get", "kind"], "polygon"], paint: { "fill-color": byPart, "fill-opacity": 0.45 } },
    { id: "repaired-outline", type: "line", source: "repaired-parts", filter: ["!=", ["get", "kind"], "point"], paint: { "line-color": byPart, "line-width": 2 } },
    {
      id: "repaired-points", type: "circle", source: "repaired-parts", filter: ["==", ["get", "kind"], "point"],
      paint: { "circle-radius": 5, "circle-color": byPart, "circle-stroke-color": "#ffffff", "circle-stroke-width": 1.5 },
    },
  ];
}
