"use client";

import { useMemo, useState } from "react";
import { useDarkTheme } from "@/components/theme/use-dark-theme";
import { receivedLayers, receivedSources, repairedLayers, repairedSources } from "@/components/map/geometry-layers";
import { MapView, type Camera } from "@/components/map/map-view";
import type { DeadLetterDetail } from "@/lib/dead-letters/contract/detail";
import {
  displayBBox,
  fitBox,
  partsOf,
  readDisplayGeometry,
  referenceLongitude,
  unwrapForDisplay,
  type Displayable,
} from "@/lib/spatial/display";
import type { Geometry } from "@/lib/spatial/geojson";
import { selfIntersections } from "@/lib/spatial/self-intersections";
import { areaChange, DEFAULT_AREA_CHANGE_WARN } from "@/lib/dead-letters/triage/repair-warnings";

// The geometry as received (left) and as repaired (right), cameras synchronized, both fitted to the feature; or
// both overlaid on one map. A null or unparseable geometry gets a plain explanation instead of a map.

interface Prepared {
  received: Displayable;
  repaired: Displayable | null;
  receivedGeom: Geometry | null;
  repairedGeom: Geometry | null;
  ref: number | null;
  fit: [[number, number], [number, number]] | null;
  parts: number;
}

function prepare(record: DeadLetterDetail): Prepared {
  if (record.payload === null) {
    // Purged, or past retention: not a null geometry — there is no payload left to read one from.
    const reason =
      record.status === "purged"
        ? "The record was purged: its payload is gone (identity, hash and timeline stay)."
        : "The payload was removed by retention (identity, hash and timeline stay).";
    const gone: Displayable = { ok: false, reason };
    return { received: gone, repaired: gone, receivedGeom: null, repairedGeom: null, ref: null, fit: null, parts: 0 };
  }
  // After an edit the payload holds the analyst's geometry: the left map keeps what the producer sent.
  const current = readDisplayGeometry(record.payload);
  const received = record.originalGeometry !== null ? readDisplayGeometry(record.originalGeometry) : current;
  const outcome = record.analysis?.outcome;
  const repaired: Displayable | null =
    record.repairedGeometry !== null ? readDisplayGeometry(record.repairedGeometry) : outcome === "valid" ? current : null;
  const ref = (received.ok ? referenceLongitude(received.geometry) : null) ?? (repaired?.ok ? referenceLongitude(repaired.geometry) : null);
  const receivedGeom = received.ok ? unwrapForDisplay(received.geometry, ref) : null;
  const repairedGeom = repaired?.ok ? unwrapForDisplay(repaired.geometry, ref) : null;
  const box = displayBBox([receivedGeom, repairedGeom]);
  return {
    received,
    repaired,
    receivedGeom,
    repairedGeom,
    ref,
    fit: box ? fitBox(box) : null,
    parts: repairedGeom ? partsOf(repairedGeom).features.length : 0,
  };
}

function Empty({ title, reason }: { title: string; reason: string }) {
  return (
    <div
      role="region"
      aria-label={title}
      className="grid h-full place-items-center rounded border border-dashed border-slate-300 dark:border-slate-600 bg-slate-50 dark:bg-slate-800 p-4 text-center"
    >
      <div>
        <p className="text-sm font-medium text-slate-700 dark:text-slate-300">Nothing to draw</p>
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{reason}</p>
      </div>
    </div>
  );
}

export function MapsPanel({
  record,
  areaChangeWarn = DEFAULT_AREA_CHANGE_WARN,
  sentTitle = null,
}: {
  record: DeadLetterDetail;
  areaChangeWarn?: number;
  /** the right map holds the geometry a replay sent (record.lastReplay): its title says so */
  sentTitle?: string | null;
}) {
  const [mode, setMode] = useState<"side" | "overlay">("side");
  const [camera, setCamera] = useState<Camera | null>(null);
  const p = useMemo(() => prepare(record), [record]);
  const edited = record.originalGeometry !== null;
  // The analysis (and its error location) describes the current payload: after an edit, not the received geometry.
  const location = edited ? null : (record.analysis?.location ?? null);
  const fillReceived = !edited && record.analysis?.valid_before === true;
  // Computed on the geometry as displayed (unwrapped across ±180°), so the markers sit on its lines.
  const crossings = useMemo(() => (p.receivedGeom ? selfIntersections(p.receivedGeom) : null), [p]);
  const leftSources = useMemo(
    () => receivedSources(p.receivedGeom, location, p.ref, { fill: fillReceived, crossings: crossings?.points }),
    [p, location, fillReceived, crossings],
  );
  const rightSources = useMemo(() => repairedSources(p.repairedGeom), [p]);
  const overlaySources = useMemo(() => ({ ...rightSources, ...leftSources }), [leftSources, rightSources]);
  const dark = useDarkTheme();
  const leftLayers = useMemo(() => receivedLayers({ dark }), [dark]);
  const rightLayers = useMemo(() => repairedLayers({ dark }), [dark]);
  const overlayLayers = useMemo(() => [...repairedLayers({ dark }), ...receivedLayers({ dashed: true, dark })], [dark]);
  const follow = (c: Camera, _v: unknown, byUser: boolean) => {
    if (byUser) setCamera(c);
  };
  const analysis = record.analysis;
  const area = analysis ? areaChange(analysis) : null;
  const repairedTitle =
    sentTitle ??
    `${edited ? "As edited — " : ""}${analysis?.outcome === "valid" ? (edited ? "valid" : "Valid (no repair needed)") : analysis?.outcome === "dropped" ? `${edited ? "d" : "D"}ropped by the repair` : edited ? "repaired" : "Repaired"}`;
  const rightReason =
    p.repaired && !p.repaired.ok
      ? p.repaired.reason
      : `The repair dropped this geometry: ${analysis?.drop_reason ?? analysis?.reason ?? "unusable"}`;

  return (
    <section aria-labelledby="maps-heading" className="space-y-2">
      <div className="flex items-center gap-3">
        <h2 id="maps-heading" className="text-sm font-semibold">
          Geometry
        </h2>
        <div
          role="radiogroup"
          aria-label="Map layout"
          className="flex overflow-hidden rounded border border-slate-300 dark:border-slate-600 text-xs"
        >
          {(["side", "overlay"] as const).map((m) => (
            <button
              key={m}
              type="button"
              role="radio"
              aria-checked={mode === m}
              onClick={() => setMode(m)}
              className={`px-2 py-0.5 ${mode === m ? "bg-slate-800 dark:bg-slate-200 text-white dark:text-slate-900" : "bg-white dark:bg-slate-900 text-slate-700 dark:text-slate-300 hover:bg-slate-50 dark:hover:bg-slate-800"}`}
            >
              {m === "side" ? "Side by side" : "Overlay"}
            </button>
          ))}
        </div>
        {analysis?.type_changed && (
          <span
            role="status"
            className="rounded bg-amber-100 dark:bg-amber-900/50 px-2 py-0.5 text-xs font-medium text-amber-900 dark:text-amber-100 ring-1 ring-amber-300 dark:ring-amber-700"
          >
            ⚠ Type changed: {analysis.type_before} → {analysis.type_after}
          </span>
        )}
        {analysis && analysis.outcome === "repaired" && area !== null && Math.abs(area) > areaChangeWarn && (
          <span
            role="status"
            className="rounded bg-amber-100 dark:bg-amber-900/50 px-2 py-0.5 text-xs font-medium text-amber-900 dark:text-amber-100 ring-1 ring-amber-300 dark:ring-amber-700"
          >
            ⚠ Area {area > 0 ? "+" : "−"}
            {Math.abs(area * 100).toFixed(1)}%
          </span>
        )}
      </div>
      {mode === "side" ? (
        // Side by side from 640 px; on a phone one above the other, each its own height.
        <div className="grid gap-2 max-sm:auto-rows-[16rem] sm:h-80 sm:grid-cols-2">
          <div className="flex min-h-0 flex-col">
            <p className="mb-1 truncate text-xs text-slate-500 dark:text-slate-400" title="Rings as lines, vertices as dots">
              As received{edited ? " (before the edit)" : ""} — rings as lines, vertices as dots
              {crossings && crossings.points.length > 1
                ? `, ${crossings.points.length}${crossings.truncated ? "+" : ""} self-intersections ringed`
                : location
                  ? ", error location ringed"
                  : ""}
            </p>
            {p.received.ok ? (
              <MapView
                reuse
                label="Geometry as received"
                className="flex-1"
                sources={leftSources}
                layers={leftLayers}
                fit={p.fit}
                fitMaxZoom={20}
                camera={camera}
                onCameraChange={follow}
              />
            ) : (
              <Empty title="Geometry as received" reason={p.received.reason} />
            )}
          </div>
          <div className="flex min-h-0 flex-col">
            <p className="mb-1 truncate text-xs text-slate-500 dark:text-slate-400">
              {repairedTitle}
              {p.parts > 1 ? ` — ${p.parts} parts, one colour each` : ""}
            </p>
            {p.repaired?.ok ? (
              <MapView
                reuse
                label={sentTitle ? "Geometry sent" : "Geometry repaired"}
                className="flex-1"
                sources={rightSources}
                layers={rightLayers}
                fit={p.fit}
                fitMaxZoom={20}
                camera={camera}
                onCameraChange={follow}
              />
            ) : (
              <Empty title="Geometry repaired" reason={rightReason} />
            )}
          </div>
        </div>
      ) : p.receivedGeom || p.repairedGeom ? (
        <MapView
          reuse
          label="Geometry overlay"
          className="h-80"
          sources={overlaySources}
          layers={overlayLayers}
          fit={p.fit}
          fitMaxZoom={20}
        />
      ) : (
        <div className="h-80">
          <Empty title="Geometry overlay" reason={p.received.ok ? "" : p.received.reason} />
        </div>
      )}
    </section>
  );
}
