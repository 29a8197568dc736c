import type { FeatureCollection, MultiPolygon, Polygon } from "geojson";
import type { LayerSpecification, StyleSpecification } from "maplibre-gl";
import type { Topology } from "topojson-specification";
import { prepareBasemap } from "@/lib/spatial/display";

// The offline basemap: Natural Earth 1:110m countries (world-atlas, ~100 KB) drawn from a GeoJSON source. No
// remote tiles, styles, sprites or glyphs — the style is built here, and no layer draws text, so it needs none.

let loading: Promise<FeatureCollection<Polygon | MultiPolygon>> | null = null;

export function loadBasemap(): Promise<FeatureCollection<Polygon | MultiPolygon>> {
  loading ??= Promise.all([import("world-atlas/countries-110m.json"), import("topojson-client")]).then(([atlas, topojson]) => {
    const topology = (atlas.default ?? atlas) as unknown as Topology;
    const countries = topology.objects.countries;
    if (!countries) throw new Error("world-atlas: no countries object");
    return prepareBasemap(topojson.feature(topology, countries) as FeatureCollection);
  });
  return loading;
}

const BASEMAP_LAYERS: LayerSpecification[] = [
  { id: "basemap-water", type: "background", paint: { "background-color": "#dbe7ef" } },
  { id: "basemap-land", type: "fill", source: "basemap", paint: { "fill-color": "#f6f4ee" } },
  { id: "basemap-borders", type: "line", source: "basemap", paint: { "line-color": "#c9c3b5", "line-width": 0.6 } },
];

export async function baseStyle(withBasemap: boolean): Promise<StyleSpecification> {
  if (!withBasemap) return { version: 8, sources: {}, layers: [BASEMAP_LAYERS[0]!] };
  return { version: 8, sources: { basemap: { type: "geojson", data: await loadBasemap() } }, layers: BASEMAP_LAYERS };
}

export const BASEMAP_LAYER_IDS = new Set(BASEMAP_LAYERS.map((l) => l.id));
