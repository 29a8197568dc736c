"use client";

import type { Map as MapLibreMap } from "maplibre-gl";
import { useEffect, useMemo, useRef } from "react";
import type { GeoJSONStoreFeatures, TerraDraw } from "terra-draw";
import { loadTerraDraw, useStopDrawOnUnmount } from "@/components/map/terra-draw";
import { MapView } from "@/components/map/map-view";
import { displayBBox, fitBox, markerAt, referenceLongitude, unwrapForDisplay } from "@/lib/spatial/display";
import { applyPart, closeRing, toEditParts, type EditPart } from "@/lib/spatial/edit-parts";
import { Button } from "@/components/ui/button";
import type { Geometry, Position } from "@/lib/spatial/geojson";

// Vertex editing on the map with terra-draw: select a shape, drag a vertex to move it, drag a midpoint to insert
// one, right-click a vertex to delete it. Every shape is one ring, line or point of the geometry (edit-parts.ts),
// written back in place. Self-intersections are allowed on purpose: the analyst must be able to see and undo
// them, and the live check beside the map says whether the result is valid.

const wrap = (x: number) => (x > 180 ? x - 360 : x < -180 ? x + 360 : x);

type Mode = "polygon" | "linestring" | "point";
const FLAGS = {
  feature: { draggable: false, selfIntersectable: true, coordinates: { draggable: true, midpoints: true, deletable: true } },
};

/** Each part as a terra-draw feature, unwrapped next to `ref` so a shape across ±180° is drawn in one piece. */
function toFeatures(parts: EditPart[], ref: number | null): GeoJSONStoreFeatures[] {
  return parts.map((p): GeoJSONStoreFeatures => {
    const properties = { mode: p.kind satisfies Mode, path: JSON.stringify(p.path) };
    if (p.kind === "polygon") {
      const g = unwrapForDisplay({ type: "Polygon", coordinates: [p.coordinates] }, ref) as { coordinates: Position[][] };
      return { type: "Feature", geometry: { type: "Polygon", coordinates: g.coordinates }, properties };
    }
    if (p.kind === "linestring") {
      const g = unwrapForDisplay({ type: "LineString", coordinates: p.coordinates }, ref) as { coordinates: Position[] };
      return { type: "Feature", geometry: { type: "LineString", coordinates: g.coordinates }, properties };
    }
    const g = unwrapForDisplay({ type: "Point", coordinates: p.coordinates[0]! }, ref) as { coordinates: Position };
    return { type: "Feature", geometry: { type: "Point", coordinates: g.coordinates }, properties };
  });
}

export function GeometryEditor({
  geometry,
  location,
  onChange,
}: {
  geometry: Geometry;
  location: [number, number] | null;
  onChange: (geometry: Geometry) => void;
}) {
  const draw = useRef<TerraDraw | null>(null);
  useStopDrawOnUnmount(draw);
  const current = useRef(geometry);
  const emitted = useRef<string>("");
  const latest = useRef(onChange);
  useEffect(() => {
    latest.current = onChange;
  }, [onChange]);
  const ref = useMemo(() => referenceLongitude(geometry), [geometry]);
  const split = useMemo(() => toEditParts(geometry), [geometry]);
  const box = useMemo(() => displayBBox([unwrapForDisplay(geometry, ref)]), [geometry, ref]);
  const fit = useMemo(() => (box ? fitBox(box) : null), [box]);
  const sources = useMemo(() => ({ "error-marker": { data: markerAt(location, ref) } }), [location, ref]);
  const layers = useMemo(
    () => [
      {
        id: "error-marker",
        type: "circle" as const,
        source: "error-marker",
        paint: {
          "circle-radius": 10,
          "circle-color": "rgba(250, 204, 21, 0.35)",
          "circle-stroke-color": "#a16207",
          "circle-stroke-width": 2.5,
        },
      },
    ],
    [],
  );

  // A geometry typed into the JSON editor (not one this map just emitted) replaces the shapes on the map.
  useEffect(() => {
    current.current = geometry;
    const d = draw.current;
    if (!d || JSON.stringify(geometry) === emitted.current) return;
    d.clear();
    d.addFeatures(toFeatures(split.parts, ref));
  }, [geometry, split, ref]);

  async function start(map: MapLibreMap) {
    const {
      TerraDraw,
      TerraDrawSelectMode,
      TerraDrawPolygonMode,
      TerraDrawLineStringMode,
      TerraDrawPointMode,
      TerraDrawMapLibreGLAdapter,
    } = await loadTerraDraw();
    const d = new TerraDraw({
      adapter: new TerraDrawMapLibreGLAdapter({ map, coordinatePrecision: 12 }),
      modes: [
        new TerraDrawSelectMode({ flags: { polygon: FLAGS, linestring: FLAGS, point: { feature: { draggable: true } } } }),
        new TerraDrawPolygonMode(),
        new TerraDrawLineStringMode(),
        new TerraDrawPointMode(),
      ],
    });
    d.start();
    d.setMode("select");
    d.addFeatures(toFeatures(toEditParts(current.current).parts, referenceLongitude(current.current)));
    d.on("change", (ids, type) => {
      if (type !== "update") return;
      let next = current.current;
      for (const id of ids) {
        const f = d.getSnapshotFeature(id);
        const path = typeof f?.properties.path === "string" ? (JSON.parse(f.properties.path) as number[]) : null;
        if (!f || !path) continue;
        const coords =
          f.geometry.type === "Polygon"
            ? f.geometry.coordinates[0]!
            : f.geometry.type === "LineString"
              ? f.geometry.coordinates
              : [f.geometry.coordinates];
        next = applyPart(
          next,
          path,
          coords.map((c) => [wrap(c[0]!), c[1]!, ...c.slice(2)]),
        );
      }
      if (next === current.current) return;
      current.current = next;
      emitted.current = JSON.stringify(next);
      latest.current(next);
    });
    draw.current = d;
  }

  return (
    <div className="flex h-full flex-col gap-1">
      <MapView
        label="Geometry editor"
        className="min-h-72 flex-1"
        sources={sources}
        layers={layers}
        fit={fit}
        fitMaxZoom={20}
        onReady={(m) => void start(m)}
      />
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Click a shape to select it; drag a vertex to move it, drag a midpoint to insert one, right-click a vertex to delete it.
        {split.skipped.length > 0 && (
          <span className="block text-amber-800 dark:text-amber-200">
            Not editable on the map{split.closable.length === split.skipped.length ? " until closed" : " (edit in the JSON)"}:{" "}
            {split.skipped.join("; ")}.
          </span>
        )}
      </p>
      {split.closable.length > 0 && (
        <div className="flex flex-wrap gap-2">
          {/* The ring is closed the way GEOS and every GIS expect: its first position repeated at the end. */}
          {split.closable.map((path) => (
            <Button key={path.join(".")} size="sm" onClick={() => onChange(closeRing(geometry, path))}>
              Close ring {path.join(".")}
            </Button>
          ))}
        </div>
      )}
    </div>
  );
}
