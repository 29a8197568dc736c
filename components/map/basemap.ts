import type { FeatureCollection, MultiPolygon, Polygon } from "geojson";
import type { LayerSpecification, Map } from "maplibre-gl";
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

export const BASEMAP_SOURCE_ID = "basemap";

// Water, land and borders per theme: the dark pair keeps the land a step above the water and the geometry's
// colours (geometry-layers.ts) readable on both.
const PALETTE = {
  light: { water: "#dbe7ef", land: "#f6f4ee", border: "#c9c3b5" },
  dark: { water: "#0b1726", land: "#1e293b", border: "#475569" },
} as const;

/** Whether the page is dark now (the class components/theme/theme-script.ts sets), for a map being built. */
export const pageIsDark = (): boolean => typeof document !== "undefined" && document.documentElement.classList.contains("dark");

const palette = (dark: boolean) => (dark ? PALETTE.dark : PALETTE.light);

const backgroundLayer = (dark: boolean): LayerSpecification => ({
  id: "basemap-water",
  type: "background",
  paint: { "background-color": palette(dark).water },
});

/** The water, in the page's theme when called. */
export const background = (): LayerSpecification => backgroundLayer(pageIsDark());

const basemapLayers = (dark: boolean): LayerSpecification[] => [
  { id: "basemap-land", type: "fill", source: BASEMAP_SOURCE_ID, paint: { "fill-color": palette(dark).land } },
  { id: "basemap-borders", type: "line", source: BASEMAP_SOURCE_ID, paint: { "line-color": palette(dark).border, "line-width": 0.6 } },
];
const BASEMAP_LAYERS = basemapLayers(false);

/** Repaints water, land and borders of a map for a theme (a toggle, or a pooled map reused after one). */
export function setBasemapTheme(map: Map, dark: boolean): void {
  const p = palette(dark);
  if (map.getLayer("basemap-water")) map.setPaintProperty("basemap-water", "background-color", p.water);
  if (map.getLayer("basemap-land")) map.setPaintProperty("basemap-land", "fill-color", p.land);
  if (map.getLayer("basemap-borders")) map.setPaintProperty("basemap-borders", "line-color", p.border);
}

/**
 * Adds the countries under every other layer. Done after the map's own data is drawn: turning ~180 country
 * polygons into tiles is the slowest part of a map's first draw with software WebGL, and the record's geometry, not the
 * coastline, is what the analyst is waiting for. maxzoom 5: at 1:110m there is no detail beyond it, so deeper
 * zooms overzoom the z5 tile instead of cutting coastlines down to parcel scale.
 */
export async function addBasemap(map: Map, visible = true): Promise<void> {
  const data = await loadBasemap();
  if (map.getSource(BASEMAP_SOURCE_ID)) return;
  map.addSource(BASEMAP_SOURCE_ID, { type: "geojson", data, maxzoom: 5, buffer: 16 });
  const below = map.getStyle().layers.find((l) => l.id !== backgroundLayer(false).id)?.id;
  for (const layer of basemapLayers(pageIsDark())) map.addLayer(visible ? layer : { ...layer, layout: { visibility: "none" } }, below);
}

/** Adds the countries, or shows them again on a reused map that had them hidden. */
export async function showBasemap(map: Map): Promise<void> {
  await addBasemap(map);
  setBasemapVisible(map, true);
}

/**
 * Hides or shows the countries of a map that has them. A reused map hides them until its record drew: MapLibre
 * loads no tiles for a source without a visible layer, so the record's tiles do not queue behind the countries'.
 */
export function setBasemapVisible(map: Map, visible: boolean): void {
  for (const layer of BASEMAP_LAYERS) {
    if (map.getLayer(layer.id)) map.setLayoutProperty(layer.id, "visibility", visible ? "visible" : "none");
  }
}

export const BASEMAP_LAYER_IDS = new Set([backgroundLayer(false).id, ...BASEMAP_LAYERS.map((l) => l.id)]);

// Maps still waiting for their first draw. The countries are tiled in the same (single, on 2 cores) worker as the
// records' geometry, so every map's basemap waits until no map on the page is still drawing its own data.
let drawing = 0;
const waiting: (() => void)[] = [];

/** Counts a map as drawing; call the returned function (any number of times) once it drew, failed or unmounted. */
export function startFirstDraw(): () => void {
  drawing++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    drawing--;
    if (drawing === 0) for (const resolve of waiting.splice(0)) resolve();
  };
}

/** Resolves when no map is waiting for its first draw. */
export function afterFirstDraws(): Promise<void> {
  return drawing === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve));
}
