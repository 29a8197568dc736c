import type { Map as MapLibreMap, MapEventType, StyleSpecification } from "maplibre-gl";
import { background, BASEMAP_LAYER_IDS, BASEMAP_SOURCE_ID, addBasemap, setBasemapVisible } from "./basemap";

// Map instances kept alive across mounts (react-map-gl's `reuseMaps`, Maplibre.reuse/recycle). A MapView that
// unmounts parks its map here instead of removing it, and the next MapView that mounts takes it back: the container
// element moves into the new component, the map is resized and gets the new record's sources.
//
// Why: with software WebGL on 2 cores a new map costs a WebGL context, shader compilation, a style load and a new
// tiling of the countries in the worker before the record's geometry can draw — most of the time between a click on a
// row and both detail maps drawn (tests/e2e/triage-timing, performance marks map:*:mount → map:*:idle). A parked map
// has its context, its compiled programs and the countries' index in the worker; reusing it leaves the record's own
// tiles as the work.
//
// Parked maps are in a "known base state": no sources or layers but the water and the (hidden) countries, no
// listeners of a former owner (MapView removes its own; maps whose owner adds its own, like terra-draw's, are not
// reusable and are removed instead). They stay in the document, offscreen at their last size, so MapLibre's own
// ResizeObserver never sees a 0×0 container. The pool is bounded: at most MAX_PARKED maps wait, and the page's
// maps plus the parked ones stay far below the ~16 WebGL contexts a browser allows.

const MAX_PARKED = 3;

export interface PooledMap {
  map: MapLibreMap;
  /** MapLibre's container: moved between the pool and the MapView that uses the map */
  element: HTMLDivElement;
  /** the style finished loading ('load' fired): only then can sources and layers be reset */
  loaded: boolean;
  /** the WebGL context was lost: such a map is removed, never reused */
  lost: boolean;
}

type MapLibre = typeof import("maplibre-gl");

export interface CreateOptions {
  style: StyleSpecification;
  bounds?: [[number, number], [number, number]] | null;
  fitMaxZoom?: number;
}

const parked: PooledMap[] = [];
let lot: HTMLDivElement | null = null;

function parkingLot(): HTMLDivElement {
  if (lot?.isConnected) return lot;
  lot = document.createElement("div");
  lot.setAttribute("aria-hidden", "true");
  lot.dataset.mapPool = "";
  // visibility:hidden, not display:none: a hidden element keeps its layout size, so the parked map's canvas does too.
  Object.assign(lot.style, { position: "fixed", left: "-10000px", top: "0", visibility: "hidden", pointerEvents: "none" });
  document.body.appendChild(lot);
  return lot;
}

function whenIdle(fn: () => void): void {
  if (typeof window.requestIdleCallback === "function") window.requestIdleCallback(fn, { timeout: 2_000 });
  else window.setTimeout(fn, 200);
}

/** Gives the element the inline style of a map inside a MapView (maplibre-gl.css would make it `relative`). */
function fill(element: HTMLDivElement): void {
  Object.assign(element.style, { position: "absolute", inset: "0", width: "", height: "" });
}

const MIN_ZOOM = -2;
const TILE = 512;

/** Web Mercator y in [0, 1] (0 at the top) for a latitude, and back. */
const mercatorY = (lat: number) => (180 - (180 / Math.PI) * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))) / 360;
const latOfMercatorY = (y: number) => (360 / Math.PI) * Math.atan(Math.exp(((180 - y * 360) * Math.PI) / 180)) - 90;

/**
 * MapLibre's constraint for a map whose world copies repeat sideways, except that the map may zoom out until the
 * world is shorter than the map (then centred on the equator, blank above and below) instead of being held at
 * the zoom where the world fills the map's height. Zoomed in, the poles stay out of view as before.
 */
export function underzoomConstrain(lngLat: { lng: number; lat: number }, zoom: number, height: number, ml: Pick<MapLibre, "LngLat">) {
  const z = Math.min(Math.max(zoom, MIN_ZOOM), 24);
  const world = TILE * 2 ** z;
  if (world <= height) return { center: new ml.LngLat(lngLat.lng, 0), zoom: z };
  const half = height / 2 / world;
  const y = Math.min(Math.max(mercatorY(Math.max(-89.9, Math.min(89.9, lngLat.lat))), half), 1 - half);
  return { center: new ml.LngLat(lngLat.lng, latOfMercatorY(y)), zoom: z };
}

/**
 * A new map, with the options every MapView uses, in a new container element placed in `host` (filling it) or, for
 * a prewarmed map, parked at `size`. Placed before construction: MapLibre measures its container then (and fits
 * `bounds` to that size), and an element outside the page measures 0×0.
 */
export function createMap(ml: MapLibre, options: CreateOptions, place: { host: HTMLElement } | { size: [number, number] }): PooledMap {
  const element = document.createElement("div");
  if ("host" in place) {
    fill(element);
    place.host.appendChild(element);
  } else moveToLot(element, place.size[0], place.size[1]);
  const { style, bounds, fitMaxZoom = 17 } = options;
  const map = new ml.Map({
    container: element,
    style,
    ...(bounds ? { bounds, fitBoundsOptions: { padding: 28, maxZoom: fitMaxZoom } } : { center: [0, 20] as [number, number], zoom: 0.8 }),
    // A tall, narrow map (the list's at 1920 px: 320 × 836) must be able to show records spread over the whole
    // world. MapLibre's own constraint zooms in until the world is as tall as the map — zoom 0.7 there, a third of
    // the records out of view, and fitBounds ("Show all") could not do better — and its zoom floor is 0.
    minZoom: MIN_ZOOM,
    transformConstrain: (lngLat, zoom) => underzoomConstrain(lngLat, zoom, element.clientHeight, ml),
    attributionControl: false,
    dragRotate: false,
    pitchWithRotate: false,
    touchPitch: false,
    fadeDuration: 0,
    maxPitch: 0,
  });
  map.touchZoomRotate.disableRotation();
  const entry: PooledMap = { map, element, loaded: false, lost: false };
  map.once("load", () => {
    entry.loaded = true;
  });
  map.on("webglcontextlost", () => {
    entry.lost = true;
  });
  map.on("error", (e) => console.error("[map]", e.error));
  return entry;
}

/** Moves the map's container into `host`, where it fills the host; true when its canvas already has that size. */
export function attachMap(entry: PooledMap, host: HTMLElement): boolean {
  fill(entry.element);
  host.appendChild(entry.element);
  const canvas = entry.map.getCanvas();
  return canvas.style.width === `${entry.element.clientWidth}px` && canvas.style.height === `${entry.element.clientHeight}px`;
}

/**
 * A parked map that still works, out of the pool; null when there is none. One parked at `width`×`height` first
 * (a record's map for the next record's, the list's for the list), so that it need not be resized; else the most
 * recently parked.
 */
export function takeMap(width: number, height: number): PooledMap | null {
  for (const entry of parked.filter((e) => e.lost)) destroy(entry);
  parked.splice(0, parked.length, ...parked.filter((e) => !e.lost));
  // A prewarmed map whose style is still loading stays parked: a new map is no slower than waiting for it.
  const sized = parked.findLastIndex((e) => e.loaded && e.element.style.width === `${width}px` && e.element.style.height === `${height}px`);
  const at = sized >= 0 ? sized : parked.findLastIndex((e) => e.loaded);
  return at < 0 ? null : parked.splice(at, 1)[0]!;
}

function destroy(entry: PooledMap): void {
  entry.element.remove();
  // Removing a map loses its WebGL context, a long synchronous GPU call with software WebGL; it waits
  // until the browser is idle so that it does not run between a click and the next page's first draw.
  whenIdle(() => entry.map.remove());
}

/** Back to the base state: water and the countries' source (layers hidden), nothing of the former owner. */
function reset(map: MapLibreMap): void {
  map.stop();
  const style = map.getStyle();
  for (const layer of style.layers) {
    if (!BASEMAP_LAYER_IDS.has(layer.id)) map.removeLayer(layer.id);
  }
  for (const id of Object.keys(style.sources)) {
    if (id !== BASEMAP_SOURCE_ID) map.removeSource(id);
  }
  setBasemapVisible(map, false);
  map.getCanvas().style.cursor = "";
}

function moveToLot(element: HTMLDivElement, width: number, height: number): void {
  Object.assign(element.style, { position: "absolute", inset: "auto", width: `${width}px`, height: `${height}px` });
  parkingLot().appendChild(element);
}

/**
 * Moves a map that is about to be parked out of its owner's element, at the size it has there. Called while the
 * owner is still in the page (a layout effect's cleanup): by the time passive effects clean up, React has removed
 * the owner's elements, the container measures 0×0, and MapLibre's ResizeObserver would shrink the map to nothing
 * — to be resized back (a canvas reallocation) by the next owner.
 */
export function parkInPlace(entry: PooledMap): void {
  const { clientWidth, clientHeight } = entry.element;
  if (clientWidth > 0 && clientHeight > 0) moveToLot(entry.element, clientWidth, clientHeight);
}

/**
 * Parks a map its owner no longer shows, or removes it when it cannot be reused (style not loaded yet, context
 * lost) or the pool is full. The owner must have removed its own listeners first.
 */
export function releaseMap(entry: PooledMap, reusable: boolean): void {
  if (!reusable || !entry.loaded || entry.lost) {
    destroy(entry);
    return;
  }
  try {
    reset(entry.map);
  } catch (err) {
    console.error("[map] could not reset a map for reuse", err);
    destroy(entry);
    return;
  }
  if (entry.element.parentElement !== lot) {
    // Not moved out by parkInPlace: the size MapLibre last gave the canvas is the size the map had on the page.
    const canvas = entry.map.getCanvas();
    moveToLot(entry.element, parseFloat(canvas.style.width) || 0, parseFloat(canvas.style.height) || 0);
  }
  parked.push(entry);
  while (parked.length > MAX_PARKED) destroy(parked.shift()!);
}

/**
 * Creates maps in the pool until `count` are parked (at most MAX_PARKED), sized `width`×`height`: the list calls it
 * while the analyst reads, so that even the first record opened only reattaches its maps. Each gets the countries'
 * source (hidden), so the worker has indexed them before a record needs them.
 */
export function prewarmMaps(ml: MapLibre, count: number, width: number, height: number): void {
  const missing = Math.min(count, MAX_PARKED) - parked.length;
  for (let i = 0; i < missing; i++) {
    const entry = createMap(ml, { style: { version: 8, sources: {}, layers: [background()] } }, { size: [width, height] });
    parked.push(entry);
    entry.map.once("load", () => {
      if (!entry.lost && entry.map.getContainer().isConnected)
        void addBasemap(entry.map, false).catch((err: unknown) => console.error("[map] basemap", err));
    });
  }
}

/** A listener that `off()` removes again; MapView removes all of its own before it gives the map back. */
export function listen<T extends keyof MapEventType>(
  map: MapLibreMap,
  type: T,
  fn: (ev: MapEventType[T] & object) => void,
  once = false,
): () => void {
  const sub = map.on(type, (ev) => {
    if (once) sub.unsubscribe();
    fn(ev);
  });
  return () => sub.unsubscribe();
}
