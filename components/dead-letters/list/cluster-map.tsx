"use client";

import type { GeoJSONSource, LayerSpecification, Map as MapLibreMap, MapGeoJSONFeature } from "maplibre-gl";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { MapView, type Bounds, type Camera } from "@/components/map/map-view";
import type { ListFilter } from "@/lib/dead-letters/filters";
import { filterKey } from "@/lib/dead-letters/filter-url";
import { useExtent, useMapPoints } from "../use-dead-letter-queries";

// Every spatial record matching the filters, on a map: the server sends record centres (or grid cells with
// counts when there are many), MapLibre clusters them. The map follows the filters; with "Filter list to map
// view" on, the list follows the map (the view becomes the bbox filter). Counts are HTML labels because the
// offline style has no glyphs.

type View = [number, number, number, number];

const clamp = (v: View): View => {
  const [w, s, e, n] = v;
  if (e - w >= 360) return [-180, Math.max(-90, s), 180, Math.min(90, n)];
  return [Math.max(-540, w), Math.max(-90, s), Math.min(540, e), Math.min(90, n)];
};

const LAYERS: LayerSpecification[] = [
  {
    id: "clusters",
    type: "circle",
    source: "points",
    filter: ["has", "point_count"],
    paint: {
      "circle-color": ["step", ["get", "total"], "#60a5fa", 100, "#2563eb", 1000, "#1e3a8a"],
      "circle-radius": ["step", ["get", "total"], 13, 100, 17, 1000, 22, 10000, 27],
      "circle-opacity": 0.85,
      "circle-stroke-color": "#ffffff",
      "circle-stroke-width": 1.5,
    },
  },
  {
    id: "points",
    type: "circle",
    source: "points",
    filter: ["!", ["has", "point_count"]],
    paint: {
      "circle-color": ["case", [">", ["get", "n"], 1], "#2563eb", "#dc2626"],
      "circle-radius": ["case", [">", ["get", "n"], 1], 12, 5],
      "circle-stroke-color": "#ffffff",
      "circle-stroke-width": 1.5,
    },
  },
];

interface Label {
  key: string;
  x: number;
  y: number;
  text: string;
}

export function ClusterMap({
  filter,
  follow,
  onFollowChange,
  onView,
  onOpen,
}: {
  filter: ListFilter;
  follow: boolean;
  onFollowChange: (on: boolean, view: View | null) => void;
  onView: (view: View) => void;
  onOpen: (id: string) => void;
}) {
  const [view, setView] = useState<{ bbox: View; zoom: number } | null>(null);
  const [labels, setLabels] = useState<Label[]>([]);
  const map = useRef<MapLibreMap | null>(null);
  const debounce = useRef<ReturnType<typeof setTimeout>>(undefined);
  const { bbox: _own, ...others } = filter;
  const points = useMapPoints(others, view ? clamp(view.bbox) : null, view?.zoom ?? 1);
  const sources = useMemo(
    () => ({
      points: {
        data: points.data ?? { type: "FeatureCollection" as const, features: [] },
        cluster: { radius: 44, maxZoom: 14, properties: { total: ["+", ["get", "n"]] } },
      },
    }),
    [points.data],
  );
  // Fit to the filter's viewport when the page opens with one; afterwards the user moves the map.
  const [fit] = useState<Bounds | null>(() =>
    filter.bbox
      ? [
          [filter.bbox[0], filter.bbox[1]],
          [filter.bbox[2], filter.bbox[3]],
        ]
      : null,
  );
  // Otherwise the map shows where the matching records are, and again whenever the other filters change — not
  // while "Filter list to map view" is on (the view is then the filter) nor when the URL gave a view.
  const extent = useExtent(others, !follow);
  const othersKey = filterKey(others);
  const fitted = useRef<string | null>(filter.bbox ? othersKey : null);
  const [ready, setReady] = useState(false);
  const box = extent.isPlaceholderData ? undefined : extent.data?.bbox;
  const fitToResults = useCallback(
    (force = false) => {
      const m = map.current;
      if (!m || !box || (!force && fitted.current === othersKey)) return;
      fitted.current = othersKey;
      m.fitBounds(
        [
          [box[0], box[1]],
          [box[2], Math.min(box[3], 85)],
        ],
        { padding: 28, maxZoom: 12, duration: 0 },
      );
    },
    [othersKey, box],
  );
  useEffect(() => {
    if (ready && !follow) fitToResults();
  }, [ready, follow, fitToResults]);

  const relabel = useCallback(() => {
    const m = map.current;
    if (!m || !m.getLayer("clusters")) return;
    const features = m.queryRenderedFeatures({ layers: ["clusters", "points"] }).slice(0, 200);
    const seen = new Set<string>();
    const next: Label[] = [];
    for (const f of features) {
      const total = (f.properties.total ?? f.properties.n) as number | undefined;
      if (!total || total < 2 || f.geometry.type !== "Point") continue;
      const key = String(f.properties.cluster_id ?? f.id ?? `${f.geometry.coordinates.join(",")}`);
      if (seen.has(key)) continue;
      seen.add(key);
      // Rendered features come back with longitudes in [-180, 180], but near the antimeridian the circle is drawn
      // on the world copy beside the view's centre: label that copy, not one off-screen.
      const [lng, lat] = f.geometry.coordinates as [number, number];
      const centre = m.getCenter().lng;
      const p = m.project([lng + 360 * Math.round((centre - lng) / 360), lat]);
      next.push({
        key,
        x: p.x,
        y: p.y,
        text: total >= 10_000 ? `${Math.round(total / 1000)}k` : total >= 1000 ? `${(total / 1000).toFixed(1)}k` : String(total),
      });
    }
    setLabels(next);
  }, []);

  useEffect(() => {
    const m = map.current;
    if (!m) return;
    // Unsubscribed on cleanup: the map is parked for reuse when this component goes (MapView `reuse`).
    const sub = m.on("idle", () => {
      sub.unsubscribe();
      relabel();
    });
    return () => sub.unsubscribe();
  }, [sources, relabel]);

  // A pending relabel must not outlive the component (its map may already be reused by another MapView).
  useEffect(() => () => clearTimeout(debounce.current), []);

  const onCamera = (c: Camera, bbox: View) => {
    clearTimeout(debounce.current);
    setLabels([]);
    debounce.current = setTimeout(() => {
      setView({ bbox, zoom: c.zoom });
      if (follow) onView(clamp(bbox));
      relabel();
    }, 300);
  };

  const onClick = (f: MapGeoJSONFeature, m: MapLibreMap) => {
    if (f.geometry.type !== "Point") return;
    const at = f.geometry.coordinates as [number, number];
    if (f.properties.cluster_id !== undefined) {
      void (m.getSource("points") as GeoJSONSource)
        .getClusterExpansionZoom(f.properties.cluster_id as number)
        .then((zoom) => m.easeTo({ center: at, zoom }));
    } else if (typeof f.properties.id === "string") onOpen(f.properties.id);
    else m.easeTo({ center: at, zoom: Math.min(m.getZoom() + 3, 18) });
  };

  return (
    <div className="flex h-full flex-col gap-1">
      <div className="flex items-center justify-between gap-2 text-xs">
        <label className="flex items-center gap-1.5">
          <input type="checkbox" checked={follow} onChange={(e) => onFollowChange(e.target.checked, view ? clamp(view.bbox) : null)} />
          Filter list to map view
        </label>
        {!follow && extent.data?.bbox && (
          <button
            type="button"
            className="text-sky-800 dark:text-sky-200 underline-offset-2 hover:underline"
            onClick={() => fitToResults(true)}
            title={`Fit the map to all ${extent.data.count.toLocaleString("en")} spatial records matching the filters`}
          >
            Show all
          </button>
        )}
        <span className="ml-auto text-slate-500 dark:text-slate-400" aria-live="polite">
          {/* Until the new filter's or view's points arrive, the map keeps the previous ones (no blank flash): say so. */}
          {points.data
            ? `${points.data.exact ? "" : "≈"}${points.data.total.toLocaleString("en")} spatial in view${points.isPlaceholderData ? " · updating…" : ""}`
            : "…"}
        </span>
      </div>
      <MapView
        reuse
        label="Map of matching spatial records"
        className={`flex-1 transition-opacity ${points.isPlaceholderData ? "opacity-60" : ""}`}
        sources={sources}
        layers={LAYERS}
        fit={fit}
        fitMaxZoom={15}
        onCameraChange={(c, b) => onCamera(c, b)}
        clickableLayers={["clusters", "points"]}
        onFeatureClick={onClick}
        onReady={(m) => {
          map.current = m;
          setReady(true);
          const b = m.getBounds();
          setView({ bbox: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], zoom: m.getZoom() });
        }}
      >
        <div aria-hidden className="pointer-events-none absolute inset-0">
          {labels.map((l) => (
            <span
              key={l.key}
              className="absolute -translate-x-1/2 -translate-y-1/2 text-[11px] font-semibold text-white"
              style={{ left: l.x, top: l.y }}
            >
              {l.text}
            </span>
          ))}
        </div>
      </MapView>
    </div>
  );
}
