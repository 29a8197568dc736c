"use client";

import "maplibre-gl/dist/maplibre-gl.css";
import type { GeoJSON } from "geojson";
import type {
  AllLayoutProperties,
  AllPaintProperties,
  GeoJSONSource,
  GeoJSONSourceSpecification,
  LayerSpecification,
  Map as MapLibreMap,
  MapEventType,
  MapGeoJSONFeature,
  StyleSpecification,
} from "maplibre-gl";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { useDarkTheme } from "@/components/theme/use-dark-theme";
import { afterFirstDraws, background, BASEMAP_LAYER_IDS, setBasemapTheme, setBasemapVisible, showBasemap, startFirstDraw } from "./basemap";
import { loadMapLibre } from "./load-maplibre";
import { attachMap, createMap, listen, parkInPlace, releaseMap, takeMap, type PooledMap } from "./map-pool";

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
  /**
   * Park the map for the next MapView instead of removing it on unmount (map-pool.ts). Only for maps whose owner
   * adds nothing to the map beyond props (no terra-draw, no listeners of its own that outlive it).
   */
  reuse?: boolean;
  className?: string;
  children?: React.ReactNode;
}

type State = "loading" | "ready" | "error";

/**
 * Commits a state change the map reports ('load', 'idle') at once instead of when React's scheduler gets to it.
 * Why: on the record's page React may commit data-drawn well after the map's 'idle' (marks map:*:idle against the
 * attribute's mutation in tests/e2e/triage-timing), batched behind the page's other updates, so the page would say
 * "not drawn" for a map on screen. In a microtask, so that a call from inside a React effect
 * (a reused map is ready within the mount effect) is flushed after it rather than warned about.
 */
function commitNow(update: () => void): void {
  queueMicrotask(() => flushSync(update));
}

function sourceSpec(def: SourceDef): GeoJSONSourceSpecification {
  return {
    type: "geojson",
    data: def.data,
    ...(def.cluster
      ? { cluster: true, clusterRadius: def.cluster.radius, clusterMaxZoom: def.cluster.maxZoom, clusterProperties: def.cluster.properties }
      : {}),
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
    layers: [background(), ...ownLayers(layers)],
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

/**
 * Brings the map's own sources and layers to the props: sources first (layers need them), then layers in order,
 * then sources no longer wanted; only what changed is touched. Returns whether anything changed.
 */
function syncStyle(map: MapLibreMap, sources: Record<string, SourceDef>, layers: LayerSpecification[], seen: Applied): boolean {
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
    changed = true;
  }
  for (const id of [...seen.data.keys()]) {
    if (!(id in sources) && map.getSource(id)) {
      map.removeSource(id);
      seen.data.delete(id);
      changed = true;
    }
  }
  return changed;
}

interface Applied {
  data: Map<string, GeoJSON>;
  layers: Map<string, LayerSpecification>;
}

export function MapView(props: MapViewProps) {
  const { label, sources, layers, fit, fitMaxZoom = 17, camera, className = "", children } = props;
  const container = useRef<HTMLDivElement>(null);
  const region = useRef<HTMLDivElement>(null);
  const [map, setMap] = useState<MapLibreMap | null>(null);
  const [state, setState] = useState<State>("loading");
  // The data objects on the map when it last went idle: the map shows the current props when they match.
  const [drawnData, setDrawnData] = useState<ReadonlyMap<string, GeoJSON> | null>(null);
  const dark = useDarkTheme();
  useEffect(() => {
    if (map) setBasemapTheme(map, dark);
  }, [map, dark]);
  // Latest callbacks without re-running effects (the map's listeners are attached once).
  const latest = useRef(props);
  useEffect(() => {
    latest.current = props;
  });
  const applied = useRef<Applied>({ data: new Map(), layers: new Map() });
  const fitted = useRef<string | null>(null);
  const jumping = useRef(false);
  // This mount's listeners on the map: removed on unmount, so a reused map carries none of a former owner's.
  const listeners = useRef<(() => void)[]>([]);
  const pooled = useRef<PooledMap | null>(null);

  // Declared before the mount effect: on unmount, a layout effect's cleanup runs while this component's elements
  // are still in the page, so the map leaves them at its real size (see parkInPlace). React also runs it when a
  // Suspense boundary or an <Activity> hides this component without unmounting it; the map comes back when
  // it is shown again.
  useLayoutEffect(() => {
    const entry = pooled.current;
    if (entry && container.current && entry.element.parentElement !== container.current) attachMap(entry, container.current);
    return () => {
      if (pooled.current && latest.current.reuse) parkInPlace(pooled.current);
    };
  }, []);

  useEffect(() => {
    let cancelled = false;
    let entry: PooledMap | null = null;
    const own = listeners.current;
    const on = <T extends keyof MapEventType>(m: MapLibreMap, type: T, fn: (ev: MapEventType[T] & object) => void, once = false) => {
      own.push(listen(m, type, fn, once));
    };
    const firstDrawn = startFirstDraw();
    const mark = (what: string) => performance.mark(`map:${latest.current.label}:${what}`);
    mark("mount");

    /** This mount's listeners, attached once the map shows this mount's first view. */
    const attach = (m: MapLibreMap) => {
      on(m, "move", (e) => {
        const c = m.getCenter();
        const b = m.getBounds();
        const byUser = !jumping.current && "originalEvent" in e && e.originalEvent !== undefined;
        latest.current.onCameraChange?.(
          { center: [c.lng, c.lat], zoom: m.getZoom() },
          [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()],
          byUser,
        );
      });
      on(m, "moveend", () => showCamera(m));
      on(m, "click", (e) => {
        const ids = (latest.current.clickableLayers ?? []).filter((id) => m.getLayer(id));
        if (!ids.length || !latest.current.onFeatureClick) return;
        const hit = m.queryRenderedFeatures(e.point, { layers: ids })[0];
        if (hit) latest.current.onFeatureClick(hit, m);
      });
      on(
        m,
        "idle",
        () => {
          mark("idle");
          const drawn = new Map(applied.current.data);
          commitNow(() => setDrawnData(drawn));
          firstDrawn();
          // The countries wait until every map on the page has drawn its own data: the maps share one worker,
          // and tiling the countries in it first would hold the second map's record back.
          if (latest.current.basemap ?? true) {
            void afterFirstDraws()
              .then(() => (cancelled ? undefined : showBasemap(m)))
              .catch((err: unknown) => console.error("[map] basemap", err));
          }
        },
        true,
      );
    };
    // The camera, on the element and outside React (no render per frame): lets a browser test turn a
    // coordinate into the pixel to click or drag, e.g. a vertex on the geometry editor.
    const showCamera = (m: MapLibreMap) => {
      const c = m.getCenter();
      region.current?.setAttribute("data-camera", `${c.lng},${c.lat},${m.getZoom()}`);
    };
    const ready = (m: MapLibreMap) => {
      // MapLibre makes every canvas a region named "Map": two maps side by side were two landmarks of one name,
      // inside this component's own labelled region. The canvas is the interactive part, which is what the
      // application role says (not a landmark); its name says how to use it and leaves the map's name to the
      // region around it, so looking the map up by its name finds one element.
      const canvas = m.getCanvas();
      canvas.setAttribute("role", "application");
      canvas.setAttribute("aria-roledescription", "map");
      canvas.setAttribute("aria-label", "Pan with the arrow keys, zoom with + and −");
      commitNow(() => {
        if (cancelled) return;
        setMap(m);
        setState("ready");
      });
      latest.current.onReady?.(m);
    };

    const reused =
      latest.current.reuse && container.current ? takeMap(container.current.clientWidth, container.current.clientHeight) : null;
    if (reused && container.current) {
      // A parked map: it is loaded, so it gets this mount's view and data now, and is ready at once. The countries
      // stay hidden until the record drew, as on a new map; data-drawn waits for the 'idle' after these changes.
      entry = reused;
      pooled.current = reused;
      const m = reused.map;
      mark("reused");
      // A resize reallocates the canvas (~30 ms with software WebGL): only when the new place differs in size.
      if (!attachMap(reused, container.current)) m.resize();
      const initial = latest.current;
      fitted.current = initial.fit ? JSON.stringify(initial.fit) : null;
      if (initial.fit) m.fitBounds(initial.fit, { padding: 28, animate: false, maxZoom: initial.fitMaxZoom ?? 17 });
      else m.jumpTo({ center: [0, 20], zoom: 0.8 });
      setBasemapVisible(m, false);
      syncStyle(m, initial.sources, initial.layers, applied.current);
      showCamera(m);
      attach(m);
      m.triggerRepaint();
      ready(m);
    } else {
      loadMapLibre()
        .then((ml) => {
          if (cancelled || !container.current) return;
          mark("module");
          const initial = latest.current;
          const box = initial.fit ?? null;
          entry = createMap(
            ml,
            { style: initialStyle(initial.sources, initial.layers), bounds: box, fitMaxZoom: initial.fitMaxZoom },
            { host: container.current },
          );
          pooled.current = entry;
          const m = entry.map;
          mark("constructed");
          applied.current = {
            data: new Map(Object.entries(initial.sources).map(([id, def]) => [id, def.data])),
            layers: new Map(ownLayers(initial.layers).map((l) => [l.id, l])),
          };
          fitted.current = box ? JSON.stringify(box) : null;
          attach(m);
          on(
            m,
            "load",
            () => {
              mark("load");
              showCamera(m);
              ready(m);
            },
            true,
          );
        })
        .catch((err: unknown) => {
          console.error("[map] could not start", err);
          firstDrawn();
          if (!cancelled) setState("error");
        });
    }
    return () => {
      cancelled = true;
      firstDrawn();
      for (const off of own.splice(0)) off();
      // A reusable map goes back to the pool (its container leaves this component); any other is removed.
      if (entry) releaseMap(entry, latest.current.reuse ?? false);
      pooled.current = null;
      applied.current = { data: new Map(), layers: new Map() };
    };
    // The map is created (or taken from the pool) once per mount; later prop changes are applied by the effects below.
  }, []);

  useEffect(() => {
    if (!map) return;
    if (!syncStyle(map, sources, layers, applied.current)) return;
    // Whatever is applied when the map next goes idle is what it drew; a repaint makes sure it goes idle again.
    listeners.current.push(
      listen(
        map,
        "idle",
        () => {
          const drawn = new Map(applied.current.data);
          commitNow(() => setDrawnData(drawn));
        },
        true,
      ),
    );
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
    if (
      Math.abs(c.lng - camera.center[0]) < 1e-9 &&
      Math.abs(c.lat - camera.center[1]) < 1e-9 &&
      Math.abs(map.getZoom() - camera.zoom) < 1e-6
    )
      return;
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
      data-drawn={isDrawn(sources, drawnData) ? "true" : "false"}
      className={`relative overflow-hidden rounded border border-slate-200 dark:border-slate-700 bg-[#dbe7ef] dark:bg-[#0b1726] ${className}`}
    >
      {/* Inline style: maplibre-gl.css gives the container `position: relative`, which would collapse it. */}
      <div ref={container} style={{ position: "absolute", inset: 0 }} />
      {state === "loading" && (
        <p className="absolute inset-0 grid place-items-center text-xs text-slate-500 dark:text-slate-400">Loading map…</p>
      )}
      {state === "error" && (
        <p role="alert" className="absolute inset-0 grid place-items-center p-4 text-center text-xs text-red-700 dark:text-red-300">
          The map could not start (WebGL unavailable?). The geometry is still in the payload below.
        </p>
      )}
      {children}
    </div>
  );
}
