"use client";

import "maplibre-gl/dist/maplibre-gl.css";
import type { GeoJSON } from "geojson";
import type {
  AllLayoutProperties, AllPaintProperties, GeoJSONSource, GeoJSONSourceSpecification, LayerSpecification, Map as MapLibreMap, MapGeoJSONFeature,
  StyleSpecification,
} from "maplibre-gl";
import { useEffect, useRef, useState } from "react";
import { addBasemap, afterFirstDraws, BACKGROUND, BASEMAP_LAYER_IDS, startFirstDraw } from "./basemap";
import { loadMapLibre } from "./load-maplibre";

// The one MapLibre wrapper (react-map-gl's pattern): the map is created once in an effect from a dynamically
// imported maplibre-gl, sources are updated with setData when their data object changes, layers are diffed by
// id (added, removed, paint/layout/filter updated) instead of being re-added, and map.remove() runs on unmount.
// Everything drawn comes from GeoJSON sources; geometry math happens in lib/spatial/display.ts, not here.
//
// Why the map starts with its data: the detail page's maps are what an analyst waits for after a click. Creating
// the map with an empty style and adding the sources once React saw 'load' put a style load, a React commit and a
// second round of tile work in series; the constructor now gets the sources, layers and fitted bounds, so the
// worker starts tiling while the style loads, and the first 'idle' is the drawn record.

export interface SourceDef {
  data: GeoJSON;
  cluster?: { radius: number; maxZoom: number; properties?: Record<string, unknown> };
}

export interface Camera {
  center: [number, number];
  zoom: number;
}

export type Bounds = [[number, number], [number, number]];

export interface MapViewProps {
  label: string;
  sources: Record<string, SourceDef>;
  layers: LayerSpecification[];
  /** fitted whenever its value changes */
  fit?: Bounds | null;
  fitMaxZoom?: number;
  /** a camera to follow (synchronized maps); jumped to when it differs from the map's own */
  camera?: Camera | null;
  /** every camera change; `byUser` when it came from a gesture rather than from props */
  onCameraChange?: (camera: Camera, view: [number, number, number, number], byUser: boolean) => void;
  onReady?: (map: MapLibreMap) => void;
  clickableLayers?: string[];
  onFeatureClick?: (feature: MapGeoJSONFeature, map: MapLibreMap) => void;
  basemap?: boolean;
  className?: string;
  children?: React.ReactNode;
}

type State = "loading" | "ready" | "error";

function whenIdle(fn: () => void): void {
  if (typeof window.requestIdleCallback === "function") window.requestIdleCallback(fn, { timeout: 2_000 });
  else window.setTimeout(fn, 200);
}

function sourceSpec(def: SourceDef): GeoJSONSourceSpecification {
  return {
    type: "geojson",
    data: def.data,
    ...(def.cluster ? { cluster: true, clusterRadius: def.cluster.radius, clusterMaxZoom: def.cluster.maxZoom, clusterProperties: def.cluster.properties } : {}),
  };
}

function ownLayers(layers: LayerSpecification[]): LayerSpecification[] {
  return layers.filter((l) => !BASEMAP_LAYER_IDS.has(l.id));
}

/** The style a map is created with: water, then the caller's sources and layers (the countries come later). */
function initialStyle(sources: Record<string, SourceDef>, layers: LayerSpecification[]): StyleSpecification {
  return {
    version: 8,
    sources: Object.fromEntries(Object.entries(sources).map(([id, def]) => [id, sourceSpec(def)])),
    layers: [BACKGROUND, ...ownLayers(layers)],
  };
}

/** Whether the map last went idle with exactly these sources' data on it. */
function isDrawn(sources: Record<string, SourceDef>, drawn: ReadonlyMap<string, GeoJSON> | null): boolean {
  if (!drawn) return false;
  const ids = Object.keys(sources);
  return ids.length === drawn.size && ids.every((id) => drawn.get(id) === sources[id]!.data);
}

function setLayer(map: MapLibreMap, spec: LayerSpecification, previous: LayerSpecification | undefined): void {
  if (!previous || previous.type !== spec.type || ("source" in previous && "source" in spec && previous.source !== spec.source)) {
    if (previous) map.removeLayer(spec.id);
    map.addLayer(spec);
    return;
  }
  const prevPaint = (previous.paint ?? {}) as Partial<AllPaintProperties>;
  const nextPaint = (spec.paint ?? {}) as Partial<AllPaintProperties>;
  for (const key of Object.keys({ ...prevPaint, ...nextPaint }) as (keyof AllPaintProperties)[]) {
    if (JSON.stringify(nextPaint[key]) !== JSON.stringify(prevPaint[key])) map.setPaintProperty(spec.id, key, nextPaint[key]);
  }
  const prevLayout = (previous.layout ?? {}) as Partial<AllLayoutProperties>;
  const nextLayout = (spec.layout ?? {}) as Partial<AllLayoutProperties>;
  for (const key of Object.keys({ ...prevLayout, ...nextLayout }) as (keyof AllLayoutProperties)[]) {
    if (JSON.stringify(nextLayout[key]) !== JSON.stringify(prevLayout[key])) map.setLayoutProperty(spec.id, key, nextLayout[key]);
  }
  const prevFilter = "filter" in previous ? previous.filter : undefined;
  const nextFilter = "filter" in spec ? spec.filter : undefined;
  if (JSON.stringify(prevFilter) !== JSON.stringify(nextFilter)) map.setFilter(spec.id, nextFilter ?? null);
}

export function MapView(props: MapViewProps) {
  const { label, sources, layers, fit, fitMaxZoom = 17, camera, className = "", children } = props;
  const container = useRef<HTMLDivElement>(null);
  const region = useRef<HTMLDivElement>(null);
  const [map, setMap] = useState<MapLibreMap | null>(null);
  const [state, setState] = useState<State>("loading");
  // The data objects on the map when it last went idle: the map shows the current props when they match.
  const [drawnData, setDrawnData] = useState<ReadonlyMap<string, GeoJSON> | null>(null);
  // Latest callbacks without re-running effects (the map's listeners are attached once).
  const latest = useRef(props);
  useEffect(() => {
    latest.current = props;
  });
  const applied = useRef({ data: new Map<string, GeoJSON>(), layers: new Map<string, LayerSpecification>() });
  const fitted = useRef<string | null>(null);
  const jumping = useRef(false);

  useEffect(() => {
    let cancelled = false;
    let created: MapLibreMap | null = null;
    const firstDrawn = startFirstDraw();
    loadMapLibre()
      .then((ml) => {
        if (cancelled || !container.current) return;
        const initial = latest.current;
        const box = initial.fit ?? null;
        created = new ml.Map({
          container: container.current,
          style: initialStyle(initial.sources, initial.layers),
          ...(box ? { bounds: box, fitBoundsOptions: { padding: 28, maxZoom: initial.fitMaxZoom ?? 17 } } : { center: [0, 20] as [number, number], zoom: 0.8 }),
          attributionControl: false,
          dragRotate: false,
          pitchWithRotate: false,
          touchPitch: false,
          fadeDuration: 0,
          maxPitch: 0,
        });
        const m = created;
        applied.current = {
          data: new Map(Object.entries(initial.sources).map(([id, def]) => [id, def.data])),
          layers: new Map(ownLayers(initial.layers).map((l) => [l.id, l])),
        };
        fitted.current = box ? JSON.stringify(box) : null;
        m.touchZoomRotate.disableRotation();
        m.on("error", (e) => console.error("[map]", e.error));
        m.on("move", (e) => {
          const c = m.getCenter();
          const b = m.getBounds();
          const byUser = !jumping.current && "originalEvent" in e && e.originalEvent !== undefined;
          latest.current.onCameraChange?.({ center: [c.lng, c.lat], zoom: m.getZoom() }, [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], byUser);
        });
        // The camera, on the element and outside React (no render per frame): lets a browser test turn a
        // coordinate into the pixel to click or drag, e.g. a vertex on the geometry editor.
        const showCamera = () => {
          const c = m.getCenter();
          region.current?.setAttribute("data-camera", `${c.lng},${c.lat},${m.getZoom()}`);
        };
        m.on("moveend", showCamera);
        m.once("load", showCamera);
        m.on("click", (e) => {
          const ids = (latest.current.clickableLayers ?? []).filter((id) => m.getLayer(id));
          if (!ids.length || !latest.current.onFeatureClick) return;
          const hit = m.queryRenderedFeatures(e.point, { layers: ids })[0];
          if (hit) latest.current.onFeatureClick(hit, m);
        });
        m.once("load", () => {
          if (cancelled) return;
          setMap(m);
          setState("ready");
          latest.current.onReady?.(m);
        });
        m.once("idle", () => {
          if (cancelled) return;
          setDrawnData(new Map(applied.current.data));
          firstDrawn();
          // The countries wait until every map on the page has drawn its own data: there is one worker on 2
          // cores, and tiling ~180 countries in it first held the second map's record back by 0.3–0.8 s.
          if (latest.current.basemap ?? true) {
            void afterFirstDraws().then(() => (cancelled ? undefined : addBasemap(m))).catch((err: unknown) => console.error("[map] basemap", err));
          }
        });
      })
      .catch((err: unknown) => {
        console.error("[map] could not start", err);
        firstDrawn();
        if (!cancelled) setState("error");
      });
    const resize = new ResizeObserver(() => created?.resize());
    if (container.current) resize.observe(container.current);
    return () => {
      cancelled = true;
      firstDrawn();
      resize.disconnect();
      const gone = created;
      // Removing a map loses its WebGL context, a synchronous GPU call of ~70–100 ms with software WebGL that,
      // on leaving the list for a record, ran before the record's maps could start (CPU profile of the e2e
      // click). Its container is already out of the page, so the removal waits until the browser is idle.
      if (gone) whenIdle(() => gone.remove());
      applied.current = { data: new Map(), layers: new Map() };
    };
    // The map is created once per mount; later prop changes are applied by the effects below.
  }, []);

  // Sources first (layers need them), then layers in order; only what changed is touched.
  useEffect(() => {
    if (!map) return;
    const seen = applied.current;
    let changed = false;
    for (const [id, def] of Object.entries(sources)) {
      const source = map.getSource(id) as GeoJSONSource | undefined;
      if (!source) {
        map.addSource(id, sourceSpec(def));
        changed = true;
      } else if (seen.data.get(id) !== def.data) {
        void source.setData(def.data);
        changed = true;
      }
      seen.data.set(id, def.data);
    }
    const wanted = new Set(layers.map((l) => l.id));
    for (const id of [...seen.layers.keys()]) {
      if (!wanted.has(id) && map.getLayer(id)) map.removeLayer(id);
      if (!wanted.has(id)) seen.layers.delete(id);
    }
    for (const spec of ownLayers(layers)) {
      const onMap = map.getLayer(spec.id) !== undefined;
      if (onMap && seen.layers.get(spec.id) === spec) continue;
      setLayer(map, spec, onMap ? seen.layers.get(spec.id) : undefined);
      seen.layers.set(spec.id, spec);
    }
    for (const id of [...seen.data.keys()]) {
      if (!(id in sources) && map.getSource(id)) {
        map.removeSource(id);
        seen.data.delete(id);
        changed = true;
      }
    }
    if (!changed) return;
    // Whatever is applied when the map next goes idle is what it drew; a repaint makes sure it goes idle again.
    map.once("idle", () => setDrawnData(new Map(applied.current.data)));
    map.triggerRepaint();
  }, [map, sources, layers]);

  const fitKey = fit ? JSON.stringify(fit) : null;
  useEffect(() => {
    if (!map || !fit || fitKey === fitted.current) return;
    fitted.current = fitKey;
    jumping.current = true;
    map.fitBounds(fit, { padding: 28, animate: false, maxZoom: fitMaxZoom });
    jumping.current = false;
    // fitKey stands for fit's value; the array itself is a new object on every render.
  }, [map, fitKey, fitMaxZoom]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (!map || !camera) return;
    const c = map.getCenter();
    if (Math.abs(c.lng - camera.center[0]) < 1e-9 && Math.abs(c.lat - camera.center[1]) < 1e-9 && Math.abs(map.getZoom() - camera.zoom) < 1e-6) return;
    jumping.current = true;
    map.jumpTo({ center: camera.center, zoom: camera.zoom });
    jumping.current = false;
  }, [map, camera]);

  return (
    <div
      ref={region}
      role="region"
      aria-label={label}
      data-map-state={state}
      data-drawn={map !== null && isDrawn(sources, drawnData) ? "true" : "false"}
      className={`relative overflow-hidden rounded border border-slate-200 bg-[#dbe7ef] ${className}`}
    >
      {/* Inline style: maplibre-gl.css gives the container `position: relative`, which would collapse it. */}
      <div ref={container} style={{ position: "absolute", inset: 0 }} />
      {state === "loading" && <p className="absolute inset-0 grid place-items-center text-xs text-slate-500">Loading map…</p>}
      {state === "error" && (
        <p role="alert" className="absolute inset-0 grid place-items-center p-4 text-center text-xs text-red-700">
          The map could not start (WebGL unavailable?). The geometry is still in the payload below.
        </p>
      )}
      {children}
    </div>
  );
}
