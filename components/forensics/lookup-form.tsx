"use client";

import dynamic from "next/dynamic";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { placeFromParams, placeParams, type DrawnPlace } from "@/lib/forensics/drawn-place";
import type { PlottedRecord } from "./place-picker";

// The lookup's one search box, plus a place (a box or a point and a radius, typed or drawn on the map) and a
// time window in UTC. Submitting puts everything in the URL, so a lookup is a link an investigator can paste
// into a ticket; the page renders the answer on the server. Drawing a shape submits at once: the results
// follow the shape, and the shape stays on the map until it is cleared.

// MapLibre and terra-draw only in the browser, and only when asked for: the lookup itself never waits for a map.
const PlacePicker = dynamic(() => import("./place-picker").then((m) => m.PlacePicker), { ssr: false });

export interface LookupFormValues {
  q: string;
  from: string;
  to: string;
  bbox: string;
  near: string;
  radiusKm: string;
}

/**
 * "2026-11-05T08:00" from <input type="datetime-local">, labelled UTC → "2026-11-05T08:00Z". Left at the minute:
 * the API reads a minute given as `to` to its end, so To 08:00 keeps a record at 08:00:30.
 */
const fromLocalInput = (v: string) => (v ? `${v}Z` : "");

/** The lookup's URL for the form's values (a box wins over a point, as the API refuses both). */
function lookupUrl(v: LookupFormValues): string {
  const p = new URLSearchParams();
  if (v.q.trim()) p.set("q", v.q.trim());
  if (v.from) p.set("from", fromLocalInput(v.from));
  if (v.to) p.set("to", fromLocalInput(v.to));
  if (v.bbox.trim()) p.set("bbox", v.bbox.replace(/\s+/g, ""));
  else if (v.near.trim()) {
    p.set("near", v.near.replace(/\s+/g, ""));
    if (v.radiusKm) p.set("radiusKm", v.radiusKm);
  }
  return `/lookup?${p.toString()}`;
}

export function LookupForm({
  initial,
  found = [],
  error = null,
}: {
  initial: LookupFormValues;
  found?: PlottedRecord[];
  /** what was wrong with the looked-up URL; shown until a field changes (then it may no longer hold) */
  error?: string | null;
}) {
  const router = useRouter();
  const [v, setV] = useState(initial);
  // A lookup opened with a place shows it on the map.
  const [showMap, setShowMap] = useState(Boolean(initial.bbox || initial.near));
  const set = (k: keyof LookupFormValues) => (e: React.ChangeEvent<HTMLInputElement>) => setV({ ...v, [k]: e.target.value });
  const radius = Number(v.radiusKm);
  const place = useMemo(() => placeFromParams(v.bbox, v.near), [v.bbox, v.near]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    router.push(lookupUrl(v));
  };

  const drawn = (place: DrawnPlace | null) => {
    const next = { ...v, ...(place ? placeParams(place) : { bbox: "", near: "" }) };
    setV(next);
    // Without a key or a place there is nothing to look up: clearing the only criterion empties the page.
    router.push(next.q.trim() || place ? lookupUrl(next) : "/lookup");
  };

  const input = "rounded border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm";
  return (
    <form
      role="search"
      aria-label="Lookup"
      onSubmit={submit}
      className="space-y-2 rounded border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3"
    >
      <div className="flex gap-2">
        <input
          aria-label="Key, hash, event id, device id or message id"
          placeholder="idempotency key, event hash (≥ 8 characters), event_id, device_id, source message id"
          className={`${input} flex-1 font-mono`}
          value={v.q}
          onChange={set("q")}
          autoFocus
        />
        <Button type="submit" variant="primary">
          Look up
        </Button>
      </div>
      <div className="flex flex-wrap items-end gap-3 text-xs text-slate-600 dark:text-slate-300">
        <label className="flex flex-col">
          From (UTC)
          <input type="datetime-local" aria-label="From (UTC)" className={input} value={v.from} onChange={set("from")} />
        </label>
        <label className="flex flex-col">
          To (UTC)
          <input type="datetime-local" aria-label="To (UTC)" className={input} value={v.to} onChange={set("to")} />
        </label>
        <label className="flex flex-col">
          Box
          <input
            aria-label="Box (minLon,minLat,maxLon,maxLat)"
            placeholder="minLon,minLat,maxLon,maxLat"
            className={`${input} w-64 font-mono`}
            value={v.bbox}
            onChange={set("bbox")}
          />
        </label>
        <label className="flex flex-col">
          or near
          <input
            aria-label="Near (lon,lat)"
            placeholder="lon,lat"
            className={`${input} w-40 font-mono`}
            value={v.near}
            onChange={set("near")}
          />
        </label>
        <label className="flex flex-col">
          radius km
          <input aria-label="Radius (km)" className={`${input} w-20`} value={v.radiusKm} onChange={set("radiusKm")} inputMode="decimal" />
        </label>
        <Button onClick={() => setShowMap((s) => !s)} aria-pressed={showMap}>
          {showMap ? "Hide map" : "Draw on map"}
        </Button>
      </div>
      {error && JSON.stringify(v) === JSON.stringify(initial) && (
        <p
          role="alert"
          className="rounded border border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 p-3 text-sm text-red-800 dark:text-red-200"
        >
          {error}
        </p>
      )}
      {showMap && (
        <PlacePicker
          place={place}
          radiusKm={Number.isFinite(radius) && radius > 0 ? radius : null}
          results={found}
          onChange={drawn}
          onOpen={(id) => router.push(`/lookup/timeline/${id}`)}
        />
      )}
    </form>
  );
}
