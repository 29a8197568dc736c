"use client";

import type { Feature, FeatureCollection, Point, Polygon } from "geojson";
import type { LayerSpecification, Map as MapLibreMap } from "maplibre-gl";
import { useEffect, useMemo, useRef, useState } from "react";
import type { GeoJSONStoreFeatures, TerraDraw } from "terra-draw";
import { loadTerraDraw, useStopDrawOnUnmount } from "@/components/map/terra-draw";
import { MapView, type Bounds } from "@/components/map/map-view";
import { Button } from "@/components/ui/button";
import { boxOfPositions, boxRing, circleRing, pointOf, type DrawnPlace } from "@/lib/forensics/drawn-place";

// The lookup's place on a map: draw a box (drag, or click two corners) or drop a point, with terra-draw. One
// shape at a time: a new one replaces the last. The shape stays on the map, with the radius around a point
// drawn as the circle the search uses, until it is cleared or replaced. Coordinates only pass through here;
// what a shape means as a query is lib/forensics/drawn-place.ts.

type Tool = "rectangle" | "point";

const placeKey = (p: DrawnPlace | null) => JSON.stringify(p);

function toFeature(place: DrawnPlace): GeoJSONStoreFeatures {
  return place.type === "bbox"
    ? { type: "Feature", geometry: { type: "Polygon", coordinates: [boxRing(place.bbox)] }, properties: { mode: "rectangle" } }
    : { type: "Feature", geometry: { type: "Point", coordinates: [place.lon, place.lat] }, properties: { mode: "point" } };
}

function fromFeature(f: GeoJSONStoreFeatures): DrawnPlace | null {
  if (f.geometry.type === "Polygon") {
    const bbox = boxOfPositions(f.geometry.coordinates[0] ?? []);
    return bbox && { type: "bbox", bbox };
  }
  if (f.geometry.type === "Point") {
    const p = pointOf(f.geometry.coordinates);
    return p && { type: "near", ...p };
  }
  return null;
}

const LAYERS: LayerSpecification[] = [
  { id: "lookup-radius-fill", type: "fill", source: "lookup-radius", paint: { "fill-color": "#0284c7", "fill-opacity": 0.12 } },
  {
    id: "lookup-radius-line",
    type: "line",
    source: "lookup-radius",
    paint: { "line-color": "#0369a1", "line-width": 1.5, "line-dasharray": [2, 1] },
  },
  {
    id: "lookup-results",
    type: "circle",
    source: "lookup-results",
    paint: { "circle-radius": 5, "circle-color": "#dc2626", "circle-stroke-color": "#ffffff", "circle-stroke-width": 1.5 },
  },
];

/** A record the lookup found, where it is on the map. */
export interface PlottedRecord {
  id: string;
  position: [number, number];
}

export function PlacePicker({
  place,
  radiusKm,
  results = [],
  onChange,
  onOpen,
}: {
  place: DrawnPlace | null;
  /** the radius around a point, drawn as a circle (not a query parameter of the map's own) */
  radiusKm: number | null;
  /** the records the current lookup found, plotted; a click opens one */
  results?: PlottedRecord[];
  onChange: (place: DrawnPlace | null) => void;
  onOpen?: (id: string) => void;
}) {
  const draw = useRef<TerraDraw | null>(null);
  useStopDrawOnUnmount(draw);
  const [ready, setReady] = useState(false);
  const [tool, setTool] = useState<Tool | null>(null);
  const latest = useRef({ place, onChange });
  useEffect(() => {
    latest.current = { place, onChange };
  });
  // The place the map shows; a place typed into the form (not one just drawn) replaces the shape.
  const shown = useRef(placeKey(place));

  // Fitted once, to the place the page opened with: later shapes are drawn where the user is looking.
  const [fit] = useState<Bounds | null>(() => {
    if (!place) return null;
    const [x1, y1, x2, y2] = place.type === "bbox" ? place.bbox : [place.lon - 0.05, place.lat - 0.05, place.lon + 0.05, place.lat + 0.05];
    return [
      [x1, y1],
      [x2, y2],
    ];
  });

  const sources = useMemo(() => {
    const features: Feature<Polygon>[] =
      place?.type === "near" && radiusKm !== null && radiusKm > 0
        ? [{ type: "Feature", geometry: { type: "Polygon", coordinates: [circleRing(place.lon, place.lat, radiusKm)] }, properties: {} }]
        : [];
    const data: FeatureCollection<Polygon> = { type: "FeatureCollection", features };
    const found: FeatureCollection<Point> = {
      type: "FeatureCollection",
      features: results.map((r) => ({ type: "Feature", geometry: { type: "Point", coordinates: r.position }, properties: { id: r.id } })),
    };
    return { "lookup-radius": { data }, "lookup-results": { data: found } };
  }, [place, radiusKm, results]);

  useEffect(() => {
    const d = draw.current;
    const key = placeKey(place);
    if (!d || key === shown.current) return;
    shown.current = key;
    d.clear();
    if (place) d.addFeatures([toFeature(place)]);
  }, [place]);

  async function start(map: MapLibreMap) {
    const { TerraDraw, TerraDrawRectangleMode, TerraDrawPointMode, TerraDrawMapLibreGLAdapter } = await loadTerraDraw();
    const d = new TerraDraw({
      adapter: new TerraDrawMapLibreGLAdapter({ map, coordinatePrecision: 9 }),
      modes: [
        // Drag or click-click: a drag is what a mouse user tries first, two clicks what a trackpad user needs.
        new TerraDrawRectangleMode({
          drawInteraction: "click-move-or-drag",
          styles: { fillColor: "#0284c7", fillOpacity: 0.12, outlineColor: "#0369a1", outlineWidth: 2 },
        }),
        new TerraDrawPointMode({ styles: { pointColor: "#0369a1", pointWidth: 6, pointOutlineColor: "#ffffff", pointOutlineWidth: 2 } }),
      ],
    });
    d.start();
    const initial = latest.current.place;
    if (initial) d.addFeatures([toFeature(initial)]);
    d.on("finish", (id, context) => {
      if (context.action !== "draw") return;
      // After terra-draw is done with the pointer event that finished the shape (it still re-enables map
      // dragging after this listener returns); changing modes inside it would stop the mode mid-event.
      setTimeout(() => {
        if (draw.current !== d) return;
        const f = d.getSnapshotFeature(id);
        const next = f ? fromFeature(f) : null;
        const others = d.getSnapshot().flatMap((g) => (g.id !== undefined && g.id !== id ? [g.id] : []));
        if (others.length) d.removeFeatures(others);
        // Back to panning: one shape per search, and a map stuck in a drawing mode cannot be moved.
        d.setMode("static");
        setTool(null);
        if (!next) return;
        shown.current = placeKey(next);
        latest.current.onChange(next);
      }, 0);
    });
    draw.current = d;
    setReady(true);
  }

  const pick = (t: Tool) => {
    const d = draw.current;
    if (!d) return;
    const next = tool === t ? null : t;
    d.setMode(next ?? "static");
    setTool(next);
  };

  const clear = () => {
    draw.current?.clear();
    draw.current?.setMode("static");
    setTool(null);
    shown.current = placeKey(null);
    onChange(null);
  };

  return (
    <div className="space-y-1">
      <div className="flex flex-wrap items-center gap-2" role="toolbar" aria-label="Place on the map">
        <Button size="sm" disabled={!ready} aria-pressed={tool === "rectangle"} onClick={() => pick("rectangle")}>
          Draw a box
        </Button>
        <Button size="sm" disabled={!ready} aria-pressed={tool === "point"} onClick={() => pick("point")}>
          Drop a point
        </Button>
        <Button size="sm" variant="ghost" disabled={!ready || place === null} onClick={clear}>
          Clear place
        </Button>
        <span className="text-xs text-slate-500 dark:text-slate-400">
          {tool === "rectangle"
            ? "Drag across the map (or click two corners)."
            : tool === "point"
              ? "Click the map; the radius is the field above."
              : "Pan and zoom, then draw."}
        </span>
      </div>
      <MapView
        label="Lookup place"
        sources={sources}
        layers={LAYERS}
        clickableLayers={onOpen ? ["lookup-results"] : []}
        onFeatureClick={(f) => {
          if (typeof f.properties.id === "string" && tool === null) onOpen?.(f.properties.id);
        }}
        fit={fit}
        fitMaxZoom={14}
        className="h-80"
        onReady={(m) => void start(m)}
      />
    </div>
  );
}
